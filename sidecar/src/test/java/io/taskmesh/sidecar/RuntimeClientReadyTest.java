package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Readiness says what it waits for: the ready file, the socket and any other socket beside it. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RuntimeClientReadyTest {
  @TempDir Path dir;

  @Test
  void nothingThereNamesTheMissingFileAndSocket() {
    try (RuntimeClient client = new RuntimeClient(dir.resolve(SidecarConfig.DEFAULT_SOCKET_NAME))) {
      assertThat(client.waitingFor())
          .isEqualTo(
              "ready file "
                  + dir.resolve("runtime-ready")
                  + " missing, socket "
                  + dir.resolve(SidecarConfig.DEFAULT_SOCKET_NAME)
                  + " missing");
    }
  }

  @Test
  void aRuntimeListeningUnderAnotherNameIsNamedInTheTimeoutMessage() throws IOException {
    Path otherSocket = dir.resolve("asya-runtime.sock");
    try (ServerSocketChannel other = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        RuntimeClient client = new RuntimeClient(dir.resolve(SidecarConfig.DEFAULT_SOCKET_NAME))) {
      other.bind(UnixDomainSocketAddress.of(otherSocket));
      Files.writeString(dir.resolve(RuntimeClient.READY_FILE), "ready");
      assertThatThrownBy(() -> client.awaitReady(Duration.ofMillis(600)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("runtime not ready within PT0.6S: ready file")
          .hasMessageContaining("runtime-ready present")
          .hasMessageContaining(SidecarConfig.DEFAULT_SOCKET_NAME + " missing")
          .hasMessageContaining("other sockets in " + dir + ": asya-runtime.sock")
          .hasMessageContaining("SVC_SOCKET_NAME");
      // pointed at the name the runtime used, the same client setup is ready at once
      try (RuntimeClient right = new RuntimeClient(otherSocket)) {
        right.awaitReady(Duration.ofSeconds(5));
      }
    }
  }
}
