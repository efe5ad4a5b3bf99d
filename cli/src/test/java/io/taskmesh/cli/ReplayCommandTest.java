package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReplayCommandTest {
  @Test
  void withoutABrokerAddressItRefusesToRun() {
    assertThat(new CommandLine(new ReplayCommand(Map.of())).execute()).isEqualTo(2);
  }

  @Test
  void aBadTimeoutIsRefused() {
    assertThat(
            new CommandLine(new ReplayCommand(Map.of("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")))
                .execute("--timeout", "soon"))
        .isNotZero();
  }

  @Test
  void itIsASubcommandOfTheLauncher() {
    assertThat(new CommandLine(new Main()).getSubcommands()).containsKey("replay");
  }
}
