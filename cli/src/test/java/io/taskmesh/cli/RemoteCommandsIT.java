package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./taskmesh call}, {@code tasks} and {@code flows} against a real dev stack (gateway,
 * sidecars, Python runtimes on a real broker and Postgres): in-process with piped output (plain
 * lines), and once in a real terminal (tmux) where a person would see the bars, the tokens and the
 * result.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(SharedExamples.class)
class RemoteCommandsIT {
  /** The echo after the command, not the typed command line that contains "EXIT=$?". */
  private static final Pattern EXITED = Pattern.compile("(?m)^EXIT=\\d+");

  private static final Pattern STARTED = Pattern.compile("task (\\S+) started");
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;
  private static Path root;

  @BeforeAll
  static void start() {
    root = TestStacks.root();
    stack = SharedExamples.stack();
    base = stack.gatewayUrl();
  }

  @Test
  void flowsListsTheToolsWithTheirInputSchemas() {
    Run r = taskmesh("flows", "--url", base);

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("shout  Three actors", "\"required\":[\"text\"]", "tokens", "echo")
        .contains("review  (A2A skill only)  Human in the loop"); // no mcp section: not a tool
  }

  @Test
  void callStartsAFlowThatIsOnlyAnA2aSkillAndTheAnswerFinishesIt() {
    Run r = taskmesh("call", "review", "--arg", "text=ship it", "--url", base);

    assertThat(r.exit()).as("paused for input: " + r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).contains("started (review)");
    String id = taskId(r);
    Run answered = taskmesh("tasks", "answer", id, "yes", "--url", base);
    assertThat(answered.exit()).as(answered.out() + answered.err()).isZero();
    // watch replays the history, which holds the pause: read the task until publish has run
    String done =
        Await.until(
            () -> taskmesh("tasks", "get", id, "--url", base).out(),
            out -> out.contains("\"status\" : \"succeeded\""),
            Duration.ofSeconds(60),
            "the answered review task ends");
    assertThat(done).contains("\"published\" : true");
  }

  @Test
  void callFollowsAThreeActorFlowToItsResult() {
    Run r = taskmesh("call", "shout", "--arg", "text=abc def", "--url", base);

    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out())
        .contains(
            "started (shout)",
            "running upper processing",
            "running count completed",
            "succeeded; result:",
            "\"text\" : \"FED CBA\"",
            "\"length\" : 7");
    String id = taskId(r);
    Run got = taskmesh("tasks", "get", id, "--url", base);
    assertThat(got.out()).contains("\"status\" : \"succeeded\"", "\"progress_percent\" : 100.0");
    Run list = taskmesh("tasks", "list", "--flow", "shout", "--status", "succeeded", "--url", base);
    assertThat(list.out()).startsWith("ID").contains(id);
    assertThat(taskmesh("tasks", "list", "--flow", "echo", "--url", base).out()).doesNotContain(id);
    Run watched = taskmesh("tasks", "watch", id, "--url", base);
    assertThat(watched.exit()).isZero();
    assertThat(watched.out()).contains("succeeded; result:", "FED CBA");
  }

  @Test
  void callPrintsTokensAsTheyStream() {
    Run r = taskmesh("call", "tokens", "--json", "{\"text\":\"alpha beta gamma\"}", "--url", base);

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("token: alpha\n", "token: beta\n", "token: gamma\n", "succeeded; result:");
  }

  @Test
  void argumentsTheSchemaRefusesStartNothing() {
    int before =
        taskmesh("tasks", "list", "--limit", "500", "--url", base).out().split("\n").length;

    Run r = taskmesh("call", "shout", "--arg", "other=1", "--url", base);

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().strip())
        .startsWith("taskmesh: invalid arguments for flow 'shout': ")
        .contains("text")
        .doesNotContain("\n");
    assertThat(taskmesh("tasks", "list", "--limit", "500", "--url", base).out().split("\n"))
        .hasSize(before);
    assertThat(taskmesh("call", "nope", "--url", base).err())
        .startsWith("taskmesh: unknown flow 'nope'; flows: ");
    assertThat(taskmesh("tasks", "get", "no-such-task", "--url", base).err().strip())
        .isEqualTo("taskmesh: gateway answered 404: task not found: no-such-task");
    Run down = taskmesh("flows", "--url", "http://127.0.0.1:9");
    assertThat(down.exit()).isEqualTo(3);
    assertThat(down.err()).startsWith("taskmesh: cannot reach the gateway at http://127.0.0.1:9");
  }

  @Test
  void cancelEndsAPausedTask() throws Exception {
    // review pauses for a human's answer: a task that stays open until someone acts
    String id = startReview();
    Await.until(
        () -> taskmesh("tasks", "get", id, "--url", base).out(),
        out -> out.contains("\"paused\""),
        Duration.ofSeconds(60),
        "review never paused");

    Run r = taskmesh("tasks", "cancel", id, "--url", base);

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("task " + id + " canceled\n");
    Run again = taskmesh("tasks", "cancel", id, "--url", base);
    assertThat(again.exit()).isEqualTo(3);
    assertThat(again.err()).contains("409", "already canceled");
  }

  @Test
  void aPersonInATerminalSeesTheBarsTheTokensAndTheResult() throws Exception {
    TestTools.require("tmux", "tmux");
    // a launcher like ./taskmesh that runs the classes under test (./taskmesh itself would rebuild)
    Path bin = Files.createDirectories(data.resolve("bin"));
    Files.writeString(
        bin.resolve("taskmesh"),
        "#!/bin/sh\nexec java -cp '"
            + System.getProperty("java.class.path")
            + "' io.taskmesh.cli.Main \"$@\"\n");
    bin.resolve("taskmesh").toFile().setExecutable(true);
    try (TmuxSession tmux = TmuxSession.start(120, 40)) {
      tmux.type("cd '" + bin + "' && clear");
      // keys typed before the prompt is back are echoed twice and wrap: wait for a bare prompt
      tmux.awaitPrompt();
      tmux.type(
          "./taskmesh call tokens --arg 'text=streamed words reach the screen' --url "
              + base
              + "; echo EXIT=$?");
      String tokensScreen = tmux.awaitScreen(s -> EXITED.matcher(s).find(), Duration.ofSeconds(90));
      assertThat(tokensScreen)
          .contains(
              "$ ./taskmesh call tokens",
              "started (tokens)",
              "streamedwordsreachthescreen",
              "tokens [####################] completed",
              "100%",
              "succeeded; result:",
              "EXIT=0");

      tmux.type("clear");
      tmux.awaitPrompt();
      tmux.type("./taskmesh call shout --arg 'text=abc def' --url " + base + "; echo EXIT=$?");
      String shoutScreen = tmux.awaitScreen(s -> EXITED.matcher(s).find(), Duration.ofSeconds(90));
      assertThat(shoutScreen)
          .contains(
              "$ ./taskmesh call shout",
              "started (shout)",
              "upper   [####################] completed",
              "reverse [####################] completed",
              "count   [####################] completed",
              "succeeded  [####################] 100%",
              "\"text\" : \"FED CBA\"",
              "EXIT=0")
          .doesNotContain("\u001b["); // what a person sees: no raw escape codes
      Path img = root.resolve("docs").resolve("img");
      Files.createDirectories(img);
      Files.writeString(img.resolve("cli-call-tokens.txt"), tokensScreen.strip() + "\n");
      Files.writeString(img.resolve("cli-call-shout.txt"), shoutScreen.strip() + "\n");
      TerminalPicture.render(tokensScreen.strip(), img.resolve("cli-call-tokens.png"));
      TerminalPicture.render(shoutScreen.strip(), img.resolve("cli-call-shout.png"));
    }
  }

  private static String startReview() throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":"
            + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"c1\",\"parts\":[{\"kind\":\"text\","
            + "\"text\":\"ship it\"}]},\"metadata\":{\"skill\":\"review\"},\"configuration\":{\"blocking\":false}}}";
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/a2a/"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    JsonNode answer = Json.MAPPER.readTree(r.body());
    return answer.at("/result/id").asText();
  }

  private static String taskId(Run r) {
    Matcher m = STARTED.matcher(r.out());
    assertThat(m.find()).as(r.out()).isTrue();
    return m.group(1);
  }

  /** Runs the launcher in-process with captured (so piped: plain) output. */
  private static Run taskmesh(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new Main());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private record Run(int exit, String out, String err) {}

  /** A detached tmux session running a shell: keys typed in, the visible screen read back. */
  private static final class TmuxSession implements AutoCloseable {
    private final String name;

    private TmuxSession(String name) {
      this.name = name;
    }

    static TmuxSession start(int columns, int rows) throws Exception {
      TmuxSession s =
          new TmuxSession("taskmesh-it-" + UUID.randomUUID().toString().substring(0, 8));
      s.tmux(
          "new-session",
          "-d",
          "-s",
          s.name,
          "-x",
          Integer.toString(columns),
          "-y",
          Integer.toString(rows),
          "env TERM=screen-256color PS1='$ ' bash --norc --noprofile");
      return s;
    }

    void type(String line) throws Exception {
      tmux("send-keys", "-t", name, "-l", line);
      tmux("send-keys", "-t", name, "Enter");
    }

    String screen() {
      try {
        return tmux("capture-pane", "-p", "-t", name);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    /** Waits until the screen holds nothing but the shell's prompt, as after a clear. */
    void awaitPrompt() {
      awaitScreen(s -> s.strip().equals("$"), Duration.ofSeconds(30));
    }

    String awaitScreen(java.util.function.Predicate<String> shows, Duration timeout) {
      return Await.until(this::screen, shows, timeout, "the screen never showed what was expected");
    }

    private String tmux(String... args) throws Exception {
      List<String> command = new ArrayList<>(List.of("tmux"));
      command.addAll(List.of(args));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + ": " + out);
      }
      return out;
    }

    @Override
    public void close() throws Exception {
      tmux("kill-session", "-t", name);
    }
  }
}
