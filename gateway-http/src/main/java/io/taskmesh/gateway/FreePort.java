package io.taskmesh.gateway;

import io.taskmesh.servicekit.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The port a gateway started with {@code SVC_PORT=0} serves on. Kafka Streams fixes the address a
 * replica advertises to the others when the task view starts, before the HTTP server binds, so the
 * port is chosen (by the system, as port 0 asks) just before both and then bound by the server.
 */
final class FreePort {
  private FreePort() {}

  static int on(String host) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new ConfigException("SVC_HOST", "cannot listen on " + host + ": " + e.getMessage());
    }
  }

  /**
   * A start whose server could not bind: with a chosen port, another process took it in the moment
   * between choosing and binding, and a new start chooses again.
   */
  static RuntimeException bindFailure(String host, int port, boolean chosen, RuntimeException e) {
    if (!chosen) {
      return e;
    }
    return new UncheckedIOException(
        new IOException(
            "port "
                + port
                + " on "
                + host
                + ", chosen for SVC_PORT=0, was taken before the gateway could bind it; start it"
                + " again",
            e));
  }
}
