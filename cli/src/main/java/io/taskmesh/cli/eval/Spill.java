package io.taskmesh.cli.eval;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Record bodies kept on disk instead of in memory: appended once, read back by position from any
 * thread. The file is readable by its owner only (it holds envelopes as the log does) and is
 * deleted on close.
 */
final class Spill implements AutoCloseable {
  /** Where one body is in the file. */
  record Slot(long pos, int len) {}

  private final Path file;
  private final FileChannel channel;
  private long end;

  Spill(Path file) {
    this.file = file;
    try {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the scratch file " + file, e);
    }
  }

  synchronized Slot append(byte[] body) {
    try {
      ByteBuffer b = ByteBuffer.wrap(body);
      long pos = end;
      while (b.hasRemaining()) {
        end += channel.write(b, end);
      }
      return new Slot(pos, body.length);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the scratch file " + file, e);
    }
  }

  byte[] read(Slot slot) {
    try {
      ByteBuffer b = ByteBuffer.allocate(slot.len());
      long pos = slot.pos();
      while (b.hasRemaining()) {
        int n = channel.read(b, pos + b.position());
        if (n < 0) {
          throw new IOException("the scratch file ended early");
        }
      }
      return b.array();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the scratch file " + file, e);
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a scratch file left in a temporary folder is harmless
    }
  }
}
