package io.taskmesh.cli.remote;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.cli.client.GatewayClient;
import io.taskmesh.cli.watch.TaskFollower;
import io.taskmesh.cli.watch.TaskProgress;
import io.taskmesh.cli.watch.TaskView;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./taskmesh call FLOW}: start a task through the gateway's REST API and follow it live. */
@Command(
    name = "call",
    mixinStandardHelpOptions = true,
    description = {
      "Start a flow through the gateway and follow it live: a bar per actor of the route, "
          + "FLY tokens as they stream, then the result.",
      "Arguments are checked against the flow's inputSchema first. Exit code 0 when the task succeeded, "
          + "1 when it failed, was canceled or waits for input, 2 for arguments it refuses, 3 when the gateway "
          + "refuses or cannot be reached."
    })
public final class CallCommand extends RemoteCommand {
  @Parameters(
      index = "0",
      paramLabel = "FLOW",
      description = "the flow (tool) to start; ./taskmesh flows lists them")
  String flow;

  @Option(
      names = "--arg",
      paramLabel = "key=value",
      description =
          "one argument; the value is JSON where the schema wants a number, boolean, array or object")
  List<String> args = new ArrayList<>();

  @Option(
      names = "--json",
      paramLabel = "'{...}'",
      description = "the arguments as one JSON object (--arg adds to it)")
  String json;

  @Option(
      names = "--plain",
      description = "plain lines even on a terminal (automatic when output is piped)")
  boolean plain;

  @Override
  int run(GatewayClient client) {
    JsonNode found = client.flow(flow);
    JsonNode schema = found.get("inputSchema");
    JsonNode arguments = CallArguments.build(json, args, schema);
    CallArguments.check(flow, schema, arguments);
    // the view first: FLY tokens are sent only to streams open at the time (at most once, no
    // replay), and opening a terminal takes long enough for a fast flow's first tokens to pass by
    try (TaskView view = Views.open(plain, out())) {
      String id = client.start(found, arguments);
      view.note("task " + id + " started (" + flow + ")");
      TaskProgress end = new TaskFollower(client).follow(id, view);
      return end.succeeded() ? 0 : 1;
    }
  }
}
