package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The npm packages the client ITs run (gateway-http/src/test/node), installed once with npm ci. ITs
 * run in two JVMs at once, so the check and the install hold a file lock: an npm ci that starts
 * beside another's would delete the packages the other is about to run.
 */
final class NodeClients {
  private NodeClients() {}

  static synchronized Path ensureInstalled() throws Exception {
    Path root = Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
    Path dir = root.resolve("gateway-http/src/test/node");
    Path lock = Files.createDirectories(root.resolve("gateway-http/target")).resolve("npm-ci.lock");
    try (FileChannel channel =
            FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      installIfStale(dir);
    }
    return dir;
  }

  private static void installIfStale(Path dir) throws Exception {
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
  }
}
