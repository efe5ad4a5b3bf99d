package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./taskmesh} launcher on its own class path (cli/target/classes, the modules' jars in
 * cli/target/lib, the runtime dependencies of classpath.txt), not the test class path: a class
 * missing there (a dependency scoped for tests only, a module left out of the copy) is a {@code
 * NoClassDefFoundError} users meet and no other test sees. It runs what a user runs first: {@code
 * --version}, a whole dev stack until ready (broker, Postgres, kv-connector, mesh-api, gateway,
 * crew actors, two actors' sidecars and runtimes, a state connector on a local S3 server), each
 * client command against it on the client commands' own class path, a second dev on the same data
 * (refused at once), then Ctrl-C: INT to the whole process group, as a terminal sends it, after
 * which dev exits 0 without an error line and leaves no process. The launcher and cli/target are
 * copied beside the runtime's Python package, so the copy holds no source newer than its build and
 * the launcher never starts a Maven build here. (This is also {@link DevProcessGroupIT}'s Ctrl-C
 * case: one stack serves both.)
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LauncherClasspathIT {
  private static final List<String> MISSING_CLASS =
      List.of("NoClassDefFoundError", "ClassNotFoundException", "NoSuchMethodError");

  /** Generous: a hang detector on a machine shared with other builds, not a target. */
  private static final Duration BOUND = Duration.ofSeconds(120);

  @TempDir Path dir;
  private DevProcess dev;
  private DevProcess second;
  private final List<ProcStat> children = new ArrayList<>();

  @AfterEach
  void killLeftovers() throws Exception {
    for (DevProcess p : new DevProcess[] {dev, second}) {
      if (p != null) {
        p.close();
      }
    }
    children.stream()
        .filter(c -> ProcStat.alive(c.pid(), c.startTicks()))
        .forEach(c -> ProcessHandle.of(c.pid()).ifPresent(ProcessHandle::destroyForcibly));
  }

  @Test
  void theLauncherRunsADevStackAndTheClientCommandsAndCtrlCStopsAllOfIt() throws Exception {
    Path home = copyOfTheBuild();
    Path launcher = home.resolve("taskmesh");

    Result version = run(launcher, List.of("--version"), Map.of());
    assertThat(version.status()).as(version.output()).isZero();
    assertThat(version.output()).startsWith("taskmesh ").doesNotContain("unknown");

    Path config = Files.createDirectories(dir.resolve("pipeline"));
    Path handlers = TestStacks.root().resolve("runtime").resolve("examples");
    Files.writeString(
        config.resolve("flows.yaml"),
        String.join(
            "\n",
            "flows:",
            "  - name: echo",
            "    entrypoint: echo",
            "    mcp:",
            "      inputSchema:",
            "        type: object",
            "        properties: {hello: {type: string}}",
            "        required: [hello]",
            "  - name: words",
            "    entrypoint: cache",
            ""));
    Files.writeString(
        config.resolve("actors.yaml"),
        String.join(
            "\n",
            "actors:",
            "  echo:",
            "    handler: echo.handle",
            "    dir: " + handlers,
            "  cache:",
            "    handler: cache.word_counts",
            "    dir: " + handlers,
            "    stateProxy:",
            "      - name: cache",
            "        mount: {path: /state/cache}",
            "        writeMode: buffered",
            "        connector:",
            "          type: objstore-buffered-cas",
            "          env:",
            "            - {name: STATE_BUCKET, value: taskmesh-cache}",
            ""));
    Path data = dir.resolve("data");
    List<String> devCommand =
        List.of(
            launcher.toString(),
            "dev",
            "--config",
            config.toString(),
            "--data",
            data.toString(),
            "--port",
            "0",
            "--mesh-port",
            "0",
            "--mesh-internal-port",
            "0");
    dev = DevProcess.startCommand(devCommand, Map.of(), dir.resolve("dev.log"));
    Await.until(
        () -> {
          if (!dev.isAlive()) {
            throw new AssertionError("dev exited " + dev.exitValue() + ":\n" + dev.tail(40));
          }
          return dev.lines().stream().anyMatch(l -> l.contains("Ctrl-C stops everything"));
        },
        Duration.ofMinutes(5),
        "dev ready");
    Path pgPid = data.resolve("postgres").resolve("data").resolve("postmaster.pid");
    List<ProcStat> kids = dev.childrenAnd(Long.parseLong(Files.readAllLines(pgPid).get(0).trim()));
    children.addAll(kids);
    assertThat(kids.size())
        .as("broker, Postgres, runtimes, connector, moto, watchdog")
        .isGreaterThan(5);
    String gateway =
        dev.lines().stream()
            .filter(l -> l.startsWith("gateway: http://"))
            .findFirst()
            .orElseThrow()
            .substring("gateway: ".length());

    List<Result> clientRuns = clientCommands(launcher, gateway);

    second = DevProcess.startCommand(devCommand, Map.of(), dir.resolve("second.log"));
    assertThat(second.waitFor(BOUND.toSeconds()))
        .as("a second dev on the same --data refuses at once; log:\n%s", second.tail(20))
        .isTrue();
    assertThat(second.exitValue()).isNotZero();
    assertThat(second.lines())
        .anyMatch(l -> l.startsWith("taskmesh: another ./taskmesh dev (pid " + dev.pid() + ")"));
    assertThat(Files.exists(data.resolve("kafka").resolve("node-2"))).isFalse();

    long t0 = System.nanoTime();
    dev.signalGroup("INT");
    assertThat(dev.waitFor(BOUND.toSeconds()))
        .as("dev stopped after Ctrl-C; log:\n%s", dev.tail(40))
        .isTrue();
    double stopSeconds = (System.nanoTime() - t0) / 1e9;
    Duration leftFor = dev.awaitNothingLeft(kids, BOUND);
    System.out.printf(
        "LauncherClasspathIT: Ctrl-C to the group of dev and its %d children: dev exited after"
            + " %.1f s, the last child %.1f s later (load %s)%n",
        kids.size(), stopSeconds, leftFor.toMillis() / 1e3, DevProcess.loadAverage());

    assertThat(dev.exitValue()).as("log:\n%s", dev.tail(40)).isZero();
    List<String> lines = dev.lines();
    assertThat(lines).as("no ERROR line").noneMatch(LauncherClasspathIT::isError);
    assertThat(lines)
        .as("nothing restarted while stopping")
        .noneMatch(l -> l.contains("restarting") || l.contains("starting it again"));
    assertThat(lines.subList(lines.indexOf("stopping..."), lines.size())).endsWith("stopped");
    for (Result r : clientRuns) {
      assertThat(r.output()).doesNotContain(MISSING_CLASS.toArray(String[]::new));
    }
    assertThat(version.output()).doesNotContain(MISSING_CLASS.toArray(String[]::new));
    assertThat(lines).noneMatch(l -> MISSING_CLASS.stream().anyMatch(l::contains));
    assertThat(second.lines()).noneMatch(l -> MISSING_CLASS.stream().anyMatch(l::contains));
  }

  /**
   * Every client command, on the launcher's short class path of the client commands (cli/pom.xml,
   * client-classpath.txt): the flow list, a call checked against the flow's input schema and
   * refused by it, the same call watched in a terminal (a pseudo-terminal from script(1), so the
   * live view draws with JLine) and in plain lines, then the task read back, watched and listed.
   */
  private static List<Result> clientCommands(Path launcher, String gateway) throws Exception {
    Map<String, String> client = Map.of("TASKMESH_URL", gateway);
    List<Result> runs = new ArrayList<>();
    Result help = run(launcher, List.of("--help"), client);
    assertThat(help.status()).as(help.output()).isZero();
    assertThat(help.output()).contains("call", "tasks", "replay-eval");
    Result flows = run(launcher, List.of("flows"), client);
    assertThat(flows.status()).as(flows.output()).isZero();
    assertThat(flows.output()).contains("echo");
    Result refused = run(launcher, List.of("call", "echo", "--arg", "bye=1"), client);
    assertThat(refused.status()).as(refused.output()).isEqualTo(2);
    assertThat(refused.output()).contains("invalid arguments for flow 'echo'", "hello");
    Result plain =
        run(launcher, List.of("call", "echo", "--arg", "hello=plain", "--plain"), client);
    assertThat(plain.status()).as(plain.output()).isZero();
    assertThat(plain.output()).contains("succeeded", "\"hello\" : \"plain\"");
    Result terminal =
        run(
            Path.of("script"),
            List.of("-qec", launcher + " call echo --arg hello=terminal", "/dev/null"),
            client);
    assertThat(terminal.status()).as(terminal.output()).isZero();
    assertThat(terminal.output()).contains("succeeded", "\"hello\" : \"terminal\"");
    String id =
        plain
            .output()
            .lines()
            .filter(l -> l.startsWith("task "))
            .findFirst()
            .orElseThrow()
            .split(" ")[1];
    Result get = run(launcher, List.of("tasks", "get", id), client);
    assertThat(get.status()).as(get.output()).isZero();
    assertThat(get.output()).contains(id, "succeeded");
    Result watch = run(launcher, List.of("tasks", "watch", id, "--plain"), client);
    assertThat(watch.status()).as(watch.output()).isZero();
    assertThat(watch.output()).contains("succeeded");
    Result tasks = run(launcher, List.of("tasks", "list"), client);
    assertThat(tasks.status()).as(tasks.output()).isZero();
    assertThat(tasks.output()).contains(id);
    runs.addAll(List.of(help, flows, refused, plain, terminal, get, watch, tasks));
    return runs;
  }

  private static boolean isError(String line) {
    return line.contains(" ERROR ") || line.startsWith("ERROR") || line.contains("Exception");
  }

  /** The launcher, cli/target and the runtime's Python package, as a user's tree has them. */
  private Path copyOfTheBuild() throws Exception {
    Path root = TestStacks.root();
    Path home = Files.createDirectories(dir.resolve("home"));
    Files.createDirectories(home.resolve("cli"));
    Files.createDirectories(home.resolve("runtime"));
    // -a keeps the times: nothing in the copy is newer than its build, so nothing is built
    copy(root.resolve("taskmesh"), home);
    copy(root.resolve("cli").resolve("target"), home.resolve("cli"));
    copy(root.resolve("runtime").resolve("taskmesh_runtime"), home.resolve("runtime"));
    return home;
  }

  private static void copy(Path from, Path intoDir) throws Exception {
    Result r = run(Path.of("cp"), List.of("-a", from.toString(), intoDir.toString()), Map.of());
    assertThat(r.status()).as(r.output()).isZero();
  }

  record Result(int status, String output) {}

  /** Runs to its end (a hang detector bounds it), stdout and stderr together. */
  private static Result run(Path program, List<String> args, Map<String, String> env)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(program.toString());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", cmd).isTrue();
    return new Result(p.exitValue(), out);
  }
}
