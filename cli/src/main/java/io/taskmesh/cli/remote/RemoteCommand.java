package io.taskmesh.cli.remote;

import io.taskmesh.cli.client.ClientException;
import io.taskmesh.cli.client.GatewayClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that talks to a running gateway: a failure is one line on stderr ({@code taskmesh:
 * ...}) and a non-zero exit, never a stack trace.
 */
abstract class RemoteCommand implements Callable<Integer> {
  @Mixin GatewayOptions gateway;

  @Spec CommandSpec spec;

  @Override
  public final Integer call() {
    try {
      return run(gateway.client());
    } catch (ClientException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("taskmesh: " + e.getMessage());
      err.flush();
      return e.exitCode();
    }
  }

  abstract int run(GatewayClient client);

  PrintWriter out() {
    return spec.commandLine().getOut();
  }
}
