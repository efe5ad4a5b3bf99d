package io.taskmesh.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Programs a test drives (tmux, chromium, chromedriver). Under Maven, which installs them first
 * (scripts/ensure-test-tools.sh in pre-integration-test) and sets {@code
 * taskmesh.requireTestTools}, a missing one fails the test, so CI never passes by skipping it; run
 * alone (an IDE), the test is skipped with the install line.
 */
final class TestTools {
  private TestTools() {}

  /** The program's path on {@code PATH}; fails or skips (see above) when there is none. */
  static Path require(String program, String debianPackage) {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : path.split(":")) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    String message =
        program + " is not installed (apt-get install -y " + debianPackage + ", as root)";
    if (Boolean.getBoolean("taskmesh.requireTestTools")) {
      Assertions.fail(message + "; scripts/ensure-test-tools.sh installs it before the cli ITs");
    }
    Assumptions.abort(message + "; skipped");
    throw new IllegalStateException("unreachable");
  }
}
