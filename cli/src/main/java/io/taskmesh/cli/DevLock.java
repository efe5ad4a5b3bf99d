package io.taskmesh.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One {@code ./taskmesh dev} per data directory: a lock on {@code {data}/dev.lock}, which holds the
 * owner's pid. The kernel drops the lock when its process ends, however it ends, so a dev that was
 * killed leaves no stale lock to clean up, and a second dev on a directory in use refuses at once,
 * naming the first, before it starts a broker on a log directory that a broker already uses.
 */
final class DevLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DevLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * @throws CliFailure when another process holds the directory
   */
  static DevLock acquire(Path dataDir) {
    Path file = dataDir.resolve("dev.lock");
    try {
      Files.createDirectories(dataDir);
      FileChannel ch =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock = ch.tryLock();
      if (lock == null) {
        String owner = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        ch.close();
        throw new CliFailure(
            1,
            "another ./taskmesh dev"
                + (owner.isEmpty() ? "" : " (pid " + owner + ")")
                + " is running on "
                + dataDir
                + "; stop it first (Ctrl-C in its terminal"
                + (owner.isEmpty() ? "" : ", or kill " + owner)
                + ") or give this one another --data directory");
      }
      ch.truncate(0);
      ch.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)),
          0);
      ch.force(false);
      return new DevLock(ch, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + file, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // the process ends next, which drops the lock anyway
    }
  }
}
