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

    ProcessBuilder launcher =
        new ProcessBuilder(copy.resolve("taskmesh").toString(), "--help")
            .redirectOutput(copy.resolve("out.txt").toFile())
            .redirectError(copy.resolve("err.txt").toFile());
    // the JVM prints its system properties, the class path among them, to stderr before main runs
    launcher.environment().put("TASKMESH_JAVA_OPTS", "-XshowSettings:properties");
    Process process = launcher.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
    String err = Files.readString(copy.resolve("err.txt"));

    assertThat(process.exitValue()).as("exit code; stderr:\n%s", err).isZero();
    assertThat(Files.readString(copy.resolve("out.txt"))).startsWith("Usage: taskmesh");
    List<Path> classPath = classPathIn(err);
    assertThat(classPath)
        .as("class path of the copied launcher")
        .isNotEmpty()
        .noneMatch(entry -> entry.startsWith(root))
        .allMatch(Files::exists)
        .contains(copy.resolve("cli").resolve("target").resolve("classes"));
    assertThat(
            classPath.stream()
                .filter(entry -> entry.startsWith(copy))
                .map(entry -> entry.getFileName().toString()))
        .as("the reactor modules' jars come from the copy")
        .contains("gateway-http.jar", "devkit.jar", "topology.jar", "schemas.jar");
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
