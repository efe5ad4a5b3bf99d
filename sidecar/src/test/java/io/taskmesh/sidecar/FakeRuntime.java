package io.taskmesh.sidecar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A canned answer on a real Unix socket, for the rows the real runtime never produces (a non-HTTP
 * answer, an unexpected status). Stands beside the real-runtime tests, not instead.
 */
final class FakeRuntime implements AutoCloseable {
  private final ServerSocketChannel server;
  private final Path dir;
  private final AtomicInteger calls = new AtomicInteger();
  private final Thread thread;

  FakeRuntime(String rawResponse) {
    try {
      dir = Files.createTempDirectory("svc-fake");
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(dir.resolve(SidecarConfig.DEFAULT_SOCKET_NAME)));
      Files.writeString(dir.resolve(RuntimeClient.READY_FILE), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    thread = new Thread(() -> serve(rawResponse), "fake-runtime");
    thread.setDaemon(true);
    thread.start();
  }

  private void serve(String raw) {
    while (server.isOpen()) {
      try (SocketChannel ch = server.accept()) {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        int n = ch.read(buf); // connection checks send nothing; real calls send the request
        if (n > 0) {
          calls.incrementAndGet();
          ch.write(ByteBuffer.wrap(raw.getBytes(StandardCharsets.UTF_8)));
        }
      } catch (IOException e) {
        return;
      }
    }
  }

  Path socketDir() {
    return dir;
  }

  int calls() {
    return calls.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
