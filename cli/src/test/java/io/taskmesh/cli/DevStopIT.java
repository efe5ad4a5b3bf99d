package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./taskmesh dev} stopped by TERM (what Ctrl-C and a service manager send) stops its
 * services before the Postgres it started: before, the embedded Postgres's own shutdown hook ran
 * beside ours and the database went first, under the kv-connector, mesh-api and gateway.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DevStopIT {
  @TempDir Path data;

  @Test
  void termStopsEveryServiceBeforeItsPostgresAndExitsZero() throws Exception {
    Path root = TestStacks.root();
    // Postgres's users are the kv-connector, mesh-api and the gateway, not the actors: the shout
    // flow's three (a route of sidecars that stop first) rather than the examples' twelve
    Path config = TestStacks.shoutPipeline(data.resolve("pipeline"));
    List<String> args =
        List.of(
            "dev",
            "--config",
            config.toString(),
            "--kafka",
            LocalKafka.shared().bootstrapServers(),
            "--data",
            data.toString(),
            "--port",
            "0",
            "--mesh-port",
            "0",
            "--mesh-internal-port",
            "0");
    try (ChildJvm dev =
        ChildJvm.start(
            Main.class.getName(),
            List.of("-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            args,
            Map.of("TASKMESH_HOME", root.toString()),
            data.resolve("dev.log"))) {
      dev.awaitLine(l -> l.contains("Ctrl-C stops everything"), 3, TimeUnit.MINUTES);
      Path postmasterPid = data.resolve("postgres").resolve("data").resolve("postmaster.pid");
      assertThat(postmasterPid).exists();

      assertThat(dev.terminate(60)).as("stopped within 60 s; log:\n%s", dev.tail(40)).isTrue();

      List<String> lines = dev.lines();
      int stopping = lines.indexOf("stopping...");
      assertThat(stopping).as("log:\n%s", dev.tail(40)).isNotNegative();
      assertThat(lines.subList(stopping, lines.size()))
          .as("nothing complains while stopping: the database outlives its users")
          .noneMatch(
              l ->
                  l.contains("unavailable")
                      || l.contains("failed")
                      || l.contains("refused")
                      || l.contains("lost its connection")
                      || l.contains("WARN")
                      || l.contains("ERROR"))
          .endsWith("stopped");
      assertThat(dev.exitValue()).isZero();
      assertThat(Files.exists(postmasterPid))
          .as("Postgres was stopped (its pid file removed)")
          .isFalse();
    }
  }
}
