package io.taskmesh.cli;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * The dev stack as the ITs start it: on the shared broker and Postgres, in a namespace of its own.
 */
final class TestStacks {
  private TestStacks() {}

  /** The repository root (the build passes it; a run from the module's folder finds it above). */
  static Path root() {
    return Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
  }

  /**
   * Writes the bundled examples' {@code shout} flow alone ({@code upper -> reverse -> count}, three
   * actors of the examples' handlers) into {@code dir}, for an IT that needs a multi-actor route
   * but not the examples' twelve actors (each a sidecar and a Python runtime to start and stop).
   */
  static Path shoutPipeline(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path handlers = root().resolve("runtime").resolve("examples");
    Files.writeString(
        dir.resolve("flows.yaml"),
        String.join(
            "\n",
            "flows:",
            "  - name: shout",
            "    entrypoint: upper",
            "    route_next: [reverse, count]",
            "    timeout: 60",
            "    mcp:",
            "      inputSchema:",
            "        type: object",
            "        properties:",
            "          text: {type: string}",
            "        required: [text]",
            "    a2a: {}",
            ""));
    StringBuilder actors = new StringBuilder("actors:\n");
    for (String actor : new String[] {"upper", "reverse", "count"}) {
      actors
          .append("  ")
          .append(actor)
          .append(":\n    handler: text.")
          .append(actor)
          .append("\n    dir: ")
          .append(handlers)
          .append('\n');
    }
    Files.writeString(dir.resolve("actors.yaml"), actors.toString());
    return dir;
  }

  /** The stack for the pipeline in {@code configDir} on the shared broker (test JVM-wide). */
  static DevStack onSharedBroker(Path configDir, Path data, String namespacePrefix) {
    return start(configDir, data, LocalKafka.shared().bootstrapServers(), namespacePrefix, 1);
  }

  /** Like {@link #onSharedBroker}, its gateway wanting {@code apiKey} ({@code SVC_MCP_API_KEY}). */
  static DevStack onSharedBrokerWithKey(
      Path configDir, Path data, String namespacePrefix, String apiKey) {
    return start(
        configDir,
        data,
        LocalKafka.shared().bootstrapServers(),
        namespacePrefix,
        1,
        Map.of("SVC_MCP_API_KEY", apiKey));
  }

  /** The stack on a cluster of its own: {@code brokers} child JVMs started by dev itself. */
  static DevStack onOwnCluster(Path configDir, Path data, String namespacePrefix, int brokers) {
    return start(configDir, data, null, namespacePrefix, brokers);
  }

  private static DevStack start(
      Path configDir, Path data, String bootstrap, String namespacePrefix, int brokers) {
    return start(configDir, data, bootstrap, namespacePrefix, brokers, System.getenv());
  }

  private static DevStack start(
      Path configDir,
      Path data,
      String bootstrap,
      String namespacePrefix,
      int brokers,
      Map<String, String> authEnv) {
    return DevStack.start(
        new DevStack.Options(
            root(),
            DevConfig.load(configDir),
            data,
            bootstrap,
            LocalPostgres.shared().jdbcUrl(),
            0,
            0,
            0,
            namespacePrefix + UUID.randomUUID().toString().substring(0, 8),
            brokers),
        authEnv,
        System.out::println);
  }
}
