package io.taskmesh.kvconnector;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Stale socket handling before a bind. */
final class UnixSocketFiles {
  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  private UnixSocketFiles() {}

  /**
   * Removes a socket file that nobody listens on. Refuses (IllegalStateException) when a live
   * server still answers on it, or when the path is not a socket at all.
   */
  static void removeStale(Path socket) throws IOException {
    if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(socket.toAbsolutePath().getParent());
      return;
    }
    if (!isSocket(socket)) {
      throw new IllegalStateException(socket + " exists and is not a Unix socket; not removing it");
    }
    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.connect(UnixDomainSocketAddress.of(socket));
      throw new IllegalStateException("another process is listening on " + socket);
    } catch (IOException refused) {
      Files.deleteIfExists(socket);
    }
  }

  static boolean isSocket(Path p) throws IOException {
    try {
      Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return ((Integer) mode & S_IFMT) == S_IFSOCK;
    } catch (UnsupportedOperationException e) {
      return !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
          && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
    }
  }
}
