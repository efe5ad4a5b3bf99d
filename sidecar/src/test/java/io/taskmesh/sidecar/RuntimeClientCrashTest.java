package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.servicekit.ClientText;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33 item 10: a runtime that dies mid-call was reported to clients as {@code
 * io.taskmesh.unixhttp.HttpResponseReader$NoResponseException}. The failure text (it becomes the
 * task's error) is in our words.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RuntimeClientCrashTest {
  @TempDir Path dir;

  @Test
  void aRuntimeThatClosesWithoutAnsweringIsDescribedInOurWords() throws Exception {
    Path socket = dir.resolve("rt.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        RuntimeClient client = new RuntimeClient(socket)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      Thread crash =
          new Thread(
              () -> {
                // reads the start of the request, then dies as a crashed runtime would
                try (SocketChannel c = server.accept()) {
                  c.read(ByteBuffer.allocate(64));
                } catch (Exception e) {
                  // the test reads the client's side
                }
              });
      crash.start();
      InvokeResult r =
          client.invoke(
              "{\"id\":\"e1\"}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10), f -> {});
      crash.join();
      assertThat(r).isInstanceOf(InvokeResult.Unavailable.class);
      String message = ((InvokeResult.Unavailable) r).message();
      // a close with the request unread is a reset, one after it an end of stream: both are ours
      assertThat(message)
          .isIn(
              "the runtime closed the connection without answering",
              "the runtime connection broke before the answer");
      assertThat(ClientText.leak(message)).isEmpty();
    }
  }
}
