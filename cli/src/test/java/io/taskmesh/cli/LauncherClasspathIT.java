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
 * crew actors, an actor's sidecar and runtime), the client commands against it, then TERM to the
 * group. The launcher and cli/target are copied beside the runtime's Python package, so the copy
 * holds no source newer than its build and the launcher never starts a Maven build here.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class LauncherClasspathIT {
  private static final List<String> MISSING_CLASS =
      List.of("NoClassDefFoundError", "ClassNotFoundException", "NoSuchMethodError");

  @TempDir Path dir;
  private DevProcess dev;
  private final List<ProcStat> children = new ArrayList<>();

  @AfterEach
  void killLeftovers() throws Exception {
    if (dev != null) {
      dev.close();
    }
    children.stream()
        .filter(c -> ProcStat.alive(c.pid(), c.startTicks()))
        .forEach(c -> ProcessHandle.of(c.pid()).ifPresent(ProcessHandle::destroyForcibly));
  }

  @Test
  void theLauncherRunsVersionADevStackAndTheClientCommands() throws Exception {
    Path home = copyOfTheBuild();
    Path launcher = home.resolve("taskmesh");

    Result version = run(launcher, List.of("--version"), Map.of());
    assertThat(version.status()).as(version.output()).isZero();
    assertThat(version.output()).startsWith("taskmesh ").doesNotContain("unknown");

    Path config = Files.createDirectories(dir.resolve("pipeline"));
    Files.writeString(
        config.resolve("flows.yaml"),
        "flows:\n  - name: echo\n    entrypoint: echo\n    mcp: {}\n");
    Files.writeString(
        config.resolve("actors.yaml"),
        "actors:\n  echo:\n    handler: echo.handle\n    dir: "
            + TestStacks.root().resolve("runtime").resolve("examples")
            + "\n");
    Path data = dir.resolve("data");
    dev =
        DevProcess.startCommand(
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
                "0"),
            Map.of(),
            dir.resolve("dev.log"));
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
    children.addAll(dev.childrenAnd(Long.parseLong(Files.readAllLines(pgPid).get(0).trim())));
    String gateway =
        dev.lines().stream()
            .filter(l -> l.startsWith("gateway: http://"))
            .findFirst()
            .orElseThrow()
            .substring("gateway: ".length());

    Map<String, String> client = Map.of("TASKMESH_URL", gateway);
    Result flows = run(launcher, List.of("flows"), client);
    assertThat(flows.status()).as(flows.output()).isZero();
    assertThat(flows.output()).contains("echo");
    Result tasks = run(launcher, List.of("tasks", "list"), client);
    assertThat(tasks.status()).as(tasks.output()).isZero();

    dev.signalGroup("TERM");
    assertThat(dev.waitFor(120)).as("dev stopped; log:\n%s", dev.tail(40)).isTrue();
    assertThat(dev.exitValue()).as("log:\n%s", dev.tail(40)).isZero();
    for (String output : List.of(version.output(), flows.output(), tasks.output())) {
      assertThat(output).doesNotContain(MISSING_CLASS.toArray(String[]::new));
    }
    assertThat(dev.lines()).noneMatch(l -> MISSING_CLASS.stream().anyMatch(l::contains));
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
