package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The npm packages the client ITs run (gateway-http/src/test/node), installed once with npm ci. */
final class NodeClients {
  private NodeClients() {}

  static synchronized Path ensureInstalled() throws Exception {
    Path dir =
        Path.of(System.getProperty("taskmesh.root", ".."))
            .toAbsolutePath()
            .normalize()
            .resolve("gateway-http/src/test/node");
    if (!Files.isRegularFile(dir.resolve("node_modules/.package-lock.json"))
        || Files.getLastModifiedTime(dir.resolve("package-lock.json"))
                .compareTo(
                    Files.getLastModifiedTime(dir.resolve("node_modules/.package-lock.json")))
            > 0) {
      Process npm =
          new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .start();
      String out = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(npm.waitFor()).as("npm ci: " + out).isZero();
    }
    return dir;
  }
}
