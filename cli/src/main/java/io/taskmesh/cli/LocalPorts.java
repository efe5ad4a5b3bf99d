package io.taskmesh.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the local backends dev starts as child processes (S3, Redis) share: ports, starting and
 * stopping.
 */
final class LocalPorts {
  private LocalPorts() {}

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, null)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static boolean accepting(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Runs {@code command}, its output appended to {@code log}, and waits until it accepts on {@code
   * port}: when it cannot be run, {@code cannotRun} is the message; when it exits or is not
   * accepting within {@code timeout}, it is killed and {@code didNotStart} is the message.
   */
  static Process start(
      List<String> command,
      Path log,
      int port,
      Duration timeout,
      String cannotRun,
      String didNotStart) {
    Process p;
    try {
      Files.createDirectories(log.getParent());
      p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(cannotRun, e);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!accepting(port)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException(didNotStart);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return p;
  }

  /** Asks the child to stop, then kills it if it has not within 10 s. */
  static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
