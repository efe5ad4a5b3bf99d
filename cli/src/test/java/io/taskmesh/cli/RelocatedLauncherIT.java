package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build is relocatable: the launcher and what {@code mvn package} left in cli/target, copied
 * with {@code cp -a} to another directory, run the copy's own classes and module jars. Before, the
 * class path file named the modules' jars by absolute paths into the directory the tree was built
 * in, so a copy silently ran the original tree's code.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RelocatedLauncherIT {
  @TempDir Path copy;

  @Test
  void aCopiedTreeRunsItsOwnClassesAndModuleJars() throws Exception {
    Path root = TestStacks.root();
    Files.createDirectories(copy.resolve("cli"));
    // -a keeps the times, so the copied launcher sees nothing newer than its build and builds
    // nothing
    run(List.of("cp", "-a", root.resolve("taskmesh").toString(), copy.toString()));
    run(
        List.of(
            "cp",
            "-a",
            root.resolve("cli").resolve("target").toString(),
            copy.resolve("cli").toString()));

    // a client command runs on the short class path, a service on the whole one: both from the copy
    assertThat(moduleJarsOfCopy(root, "--help"))
        .as("the client commands' module jars come from the copy")
        .contains("service-kit.jar", "unix-http.jar", "schemas.jar");
    assertThat(moduleJarsOfCopy(root, "dev", "--help"))
        .as("the services' module jars come from the copy")
        .contains("gateway-http.jar", "devkit.jar", "topology.jar", "schemas.jar");
  }

  /**
   * Runs the copied launcher with {@code args} (a help text, so nothing starts) and returns the
   * file names of its class path entries inside the copy, after checking that none is outside it.
   */
  private List<String> moduleJarsOfCopy(Path root, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(copy.resolve("taskmesh").toString()));
    command.addAll(List.of(args));
    ProcessBuilder launcher =
        new ProcessBuilder(command)
            .redirectOutput(copy.resolve("out.txt").toFile())
            .redirectError(copy.resolve("err.txt").toFile());
    // the JVM prints its system properties, the class path among them, to stderr before main runs
    launcher.environment().put("TASKMESH_JAVA_OPTS", "-XshowSettings:properties");
    Process process = launcher.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
    String err = Files.readString(copy.resolve("err.txt"));

    assertThat(process.exitValue()).as("%s exit code; stderr:\n%s", command, err).isZero();
    assertThat(Files.readString(copy.resolve("out.txt"))).startsWith("Usage: taskmesh");
    List<Path> classPath = classPathIn(err);
    assertThat(classPath)
        .as("class path of the copied launcher, %s", command)
        .isNotEmpty()
        .noneMatch(entry -> entry.startsWith(root))
        .allMatch(Files::exists)
        .contains(copy.resolve("cli").resolve("target").resolve("classes"));
    return classPath.stream()
        .filter(entry -> entry.startsWith(copy))
        .map(entry -> entry.getFileName().toString())
        .toList();
  }

  /** The entries of {@code java.class.path} as -XshowSettings:properties lists them, one a line. */
  private static List<Path> classPathIn(String settings) {
    List<Path> entries = new ArrayList<>();
    boolean inClassPath = false;
    for (String line : settings.split("\n")) {
      if (line.trim().startsWith("java.class.path = ")) {
        inClassPath = true;
        entries.add(Path.of(line.substring(line.indexOf(" = ") + 3).trim()));
      } else if (inClassPath && line.startsWith("        ") && !line.contains(" = ")) {
        entries.add(Path.of(line.trim()));
      } else {
        inClassPath = false;
      }
    }
    return entries;
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("%s: %s", command, output).isZero();
  }
}
