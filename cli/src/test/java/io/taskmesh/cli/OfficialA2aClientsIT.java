package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official A2A JS clients, unmodified and with no compatibility switch, against the dev stack
 * with the bundled examples (default skill {@code countdown}, which runs long enough to cancel and
 * watch): the 0.3 client ({@code a2a03/a2a-client.mjs}: send, stream, get, cancel, resubscribe,
 * list) and the 1.x client ({@code a2a1/a2a-client-v1.mjs}: send, stream, get, list; cancel and
 * subscribe through the same SDK in {@code gateway-http/src/test/a2a-client-v1}). Each client
 * folder ({@code -Da2a.clients.dir}, default {@code /work/shared/tools/clients}) is copied and its
 * SDK installed there with npm; skipped, with the reason, when node, npm or the folder is missing.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@ExtendWith(SharedExamples.class)
class OfficialA2aClientsIT {
  @TempDir static Path clients;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Path from = Path.of(System.getProperty("a2a.clients.dir", "/work/shared/tools/clients"));
    Assumptions.assumeTrue(
        Files.isRegularFile(from.resolve("a2a03/a2a-client.mjs"))
            && Files.isRegularFile(from.resolve("a2a1/a2a-client-v1.mjs")),
        "no official A2A clients at " + from);
    for (String client : List.of("a2a03", "a2a1")) {
      copy(from.resolve(client), clients.resolve(client));
      Run npm = run(clients.resolve(client), 180, "npm", "install", "--no-audit", "--no-fund");
      Assumptions.assumeTrue(npm.exit() == 0, "npm install in " + client + ": " + npm.out());
    }
    Files.copy(
        TestStacks.root()
            .resolve("gateway-http/src/test/a2a-client-v1/a2a-v1-cancel-subscribe.mjs"),
        clients.resolve("a2a1/a2a-v1-cancel-subscribe.mjs"));
    stack = SharedExamples.stack();
    base = stack.gatewayUrl();
  }

  @Test
  void theZeroPointThreeClientCompletesEveryStep() throws Exception {
    Run r = run(clients.resolve("a2a03"), 120, "node", "a2a-client.mjs", "--base", base);
    assertThat(r.out())
        .contains(
            "message/send",
            "ok: message/stream",
            "tasks/cancel -> canceled",
            "tasks/resubscribe saw",
            "tasks/list ->",
            "A2A CLIENT: ALL OK");
    assertThat(r.exit()).as(r.out()).isZero();
  }

  @Test
  void theOnePointZeroClientCompletesEveryStep() throws Exception {
    Run steps = run(clients.resolve("a2a1"), 120, "node", "a2a-client-v1.mjs", "--base", base);
    assertThat(steps.out())
        .contains(
            "ok: SendMessage",
            "ok: SendStreamingMessage",
            "ok: GetTask",
            "ok: ListTasks",
            "A2A v1 CLIENT: ALL OK");
    assertThat(steps.exit()).as(steps.out()).isZero();
    Run more = run(clients.resolve("a2a1"), 120, "node", "a2a-v1-cancel-subscribe.mjs", base);
    assertThat(more.out())
        .contains("ok: CancelTask", "ok: SubscribeToTask", "A2A v1 CANCEL/SUBSCRIBE: ALL OK");
    assertThat(more.exit()).as(more.out()).isZero();
  }

  private record Run(int exit, String out) {}

  private static Run run(Path dir, int seconds, String... command) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    } catch (IOException e) {
      Assumptions.abort(command[0] + " is not installed: " + e.getMessage());
      throw e;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Run(-1, out + "\n(timed out)");
    }
    return new Run(p.exitValue(), out);
  }

  /** The client's own files (not an installed node_modules, which npm rebuilds here). */
  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.filter(f -> !f.toString().contains("node_modules")).toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
