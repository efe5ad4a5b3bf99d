package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33 item 5: a handler cannot read the launcher's secrets. A child JVM with the gateway's
 * secrets in its environment (as {@code ./taskmesh dev} has them) starts a real Python runtime the
 * way dev does; the runtime's {@code /proc/<pid>/environ} holds none of the secrets, but its own
 * variables, the actor's {@code env} and the process basics.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RuntimeEnvironmentIT {
  static final String ACTOR_VARIABLE = "GREETING_FROM_ACTORS_YAML";
  static final String ACTOR_VALUE = "hello-handler";

  private static final Map<String, String> SECRETS =
      Map.of(
          "SVC_MCP_OAUTH_SECRET", "oauth-signing-secret-0123456789abcdef",
          "SVC_MCP_OAUTH_REGISTRATION_TOKEN", "registration-token-secret",
          "SVC_MCP_API_KEY", "mcp-api-key-secret",
          "SVC_A2A_API_KEY", "a2a-api-key-secret",
          "SVC_INTERNAL_TOKEN", "internal-token-secret-0123",
          "SVC_DATABASE_URL", "postgresql://dev:db-password-secret@127.0.0.1/taskmesh");

  @Test
  void aRuntimeStartedAsDevDoesSeesNoneOfTheLaunchersSecrets(@TempDir Path dir) throws IOException {
    Map<String, String> launcherEnv = new HashMap<>(SECRETS);
    launcherEnv.put("SVC_LOG_LEVEL", "DEBUG"); // a runtime setting: passes through
    try (ChildJvm launcher =
        ChildJvm.start(
            DevLikeRuntimeLauncher.class.getName(),
            List.of(
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dtaskmesh.root=" + TestMesh.repoRoot()),
            List.of(dir.resolve("socket").toString()),
            launcherEnv,
            dir.resolve("launcher.log"))) {
      String line =
          launcher.awaitLine(
              l -> l.startsWith(DevLikeRuntimeLauncher.PID_LINE), 90, TimeUnit.SECONDS);
      long pid = Long.parseLong(line.substring(DevLikeRuntimeLauncher.PID_LINE.length()).trim());
      try {
        Map<String, String> environ = environ(pid);
        assertThat(launcherEnvironHas(launcher.pid(), SECRETS))
            .as("the launcher itself holds the secrets, else this test proves nothing")
            .isTrue();
        assertThat(environ).doesNotContainKeys(SECRETS.keySet().toArray(String[]::new));
        String all = String.join("\n", environ.values());
        for (String secret : SECRETS.values()) {
          assertThat(all).as("a secret value in the runtime's environment").doesNotContain(secret);
        }
        assertThat(environ)
            .containsEntry(ACTOR_VARIABLE, ACTOR_VALUE)
            .containsEntry("SVC_HANDLER", "testhandlers.echo")
            .containsEntry("SVC_LOG_LEVEL", "DEBUG")
            .containsKeys("PATH", "PYTHONPATH", "SVC_SOCKET_DIR");
        assertThat(environ.keySet())
            .as("only its own variables and the process basics")
            .allMatch(
                k ->
                    k.startsWith("SVC_")
                        || k.startsWith("PYTHON")
                        || k.equals(ACTOR_VARIABLE)
                        || ChildEnvironment.PROCESS_BASICS.contains(k)
                        || setByTheInterpretersLauncher(k));
      } finally {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /**
   * What a {@code python3} that is a shell shim (pyenv) adds to its own environment on its way to
   * the interpreter: none of it comes from the launcher.
   */
  private static boolean setByTheInterpretersLauncher(String name) {
    return name.equals("PWD")
        || name.equals("SHLVL")
        || name.equals("_")
        || name.startsWith("PYENV_")
        || name.startsWith("_PYENV_");
  }

  private static boolean launcherEnvironHas(long pid, Map<String, String> expected)
      throws IOException {
    return environ(pid).entrySet().containsAll(expected.entrySet());
  }

  /** A process's environment as the kernel shows it to anyone of the same user. */
  private static Map<String, String> environ(long pid) throws IOException {
    String raw =
        new String(
            Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
            StandardCharsets.UTF_8);
    return Arrays.stream(raw.split("\0"))
        .filter(e -> e.contains("="))
        .collect(
            Collectors.toMap(
                e -> e.substring(0, e.indexOf('=')),
                e -> e.substring(e.indexOf('=') + 1),
                (a, b) -> b));
  }
}
