package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Every command of {@code ./taskmesh} answers {@code --help} with its usage and exit code 0, the
 * way a newcomer finds out what a subcommand wants before running it. Runs picocli in-process:
 * asking for help starts no service.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HelpTest {

  /** Each command's path below the root, e.g. ["replay"]; the root itself is the empty path. */
  static Stream<List<String>> everyCommand() {
    List<List<String>> paths = new ArrayList<>();
    collect(new CommandLine(new Main()), List.of(), paths);
    return paths.stream();
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> into) {
    into.add(path);
    command
        .getSubcommands()
        .forEach(
            (name, sub) -> {
              List<String> subPath = new ArrayList<>(path);
              subPath.add(name);
              collect(sub, List.copyOf(subPath), into);
            });
  }

  @ParameterizedTest(name = "taskmesh {0} --help")
  @MethodSource("everyCommand")
  void answersHelpWithItsUsageAndExitCodeZero(List<String> path) {
    Answer answer = run(path, "--help");

    assertThat(answer.exitCode()).as("exit code; stderr: %s", answer.err()).isZero();
    String usageLine =
        String.join(" ", Stream.concat(Stream.of("taskmesh"), path.stream()).toList());
    // picocli's own `help` command puts its description above the usage line
    assertThat(answer.out()).contains("Usage: " + usageLine + " ", "--help");
    assertThat(answer.err()).isEmpty();
  }

  @ParameterizedTest(name = "taskmesh {0}")
  @ValueSource(strings = {"--version", "-V"})
  void printsTheProjectVersion(String option) {
    Answer answer = run(List.of(), option);

    assertThat(answer.exitCode()).isZero();
    // the version Maven wrote into the build, not the unfiltered placeholder
    assertThat(answer.out().strip()).matches("taskmesh \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }

  @Test
  void theWalkReachesEveryLauncherCommand() {
    assertThat(everyCommand().map(p -> String.join(" ", p)))
        .contains(
            "",
            "dev",
            "gateway",
            "sidecar",
            "kv-connector",
            "mesh-api",
            "connector",
            "replay",
            "help",
            "call",
            "flows",
            "tasks",
            "tasks list",
            "tasks get",
            "tasks watch",
            "tasks cancel");
  }

  @Test
  void theRootUsageListsItsSubcommandsWithTheirDescriptions() {
    Answer answer = run(List.of(), "--help");

    assertThat(answer.out())
        .contains("replay", "Rebuild every task view from the event log")
        .contains("dev", "Start the whole system locally");
  }

  @Test
  void aSubcommandUsageShowsItsOwnOptions() {
    assertThat(run(List.of("dev"), "--help").out()).contains("--config", "--port", "--kafka");
    assertThat(run(List.of("replay"), "--help").out()).contains("--reset-only", "--timeout");
    assertThat(run(List.of("connector"), "--help").out())
        .contains(
            "<type>", "objstore-buffered-lww", "objstore-passthrough", "objstore-buffered-cas");
  }

  @Test
  void theHelpCommandShowsASubcommandsUsage() {
    Answer answer = run(List.of("help"), "replay");

    assertThat(answer.exitCode()).isZero();
    assertThat(answer.out()).contains("Usage: taskmesh replay ", "--reset-only");
  }

  private static Answer run(List<String> path, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine launcher = new CommandLine(new Main());
    launcher.setOut(new PrintWriter(out, true));
    launcher.setErr(new PrintWriter(err, true));
    List<String> argv = new ArrayList<>(path);
    argv.addAll(List.of(args));
    int exitCode = launcher.execute(argv.toArray(String[]::new));
    return new Answer(exitCode, out.toString(), err.toString());
  }

  private record Answer(int exitCode, String out, String err) {}
}
