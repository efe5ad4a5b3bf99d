package io.taskmesh.connectors;

import io.taskmesh.connectors.StoreException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What every backend accepts as a key: a relative path without {@code ..}, at most 1024 bytes with
 * the prefix.
 */
final class KeyRules {
  static final int MAX_KEY_BYTES = 1024;

  private KeyRules() {}

  /** The backend's name for {@code key}: {@code prefix + key}; a bad key -> 400. */
  static String stored(String prefix, String key) {
    if (key.isEmpty()
        || key.startsWith("/")
        || key.endsWith("/")
        || List.of(key.split("/")).contains("..")) {
      throw new StoreException(Kind.BAD_REQUEST, "bad key: '" + key + "'");
    }
    String full = prefix + key;
    if (full.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      throw new StoreException(Kind.BAD_REQUEST, "key longer than " + MAX_KEY_BYTES + " bytes");
    }
    return full;
  }

  /** A list prefix may be empty but may not climb out of the store's prefix. */
  static void checkListPrefix(String listPrefix) {
    if (listPrefix.contains("..") || listPrefix.startsWith("/")) {
      throw new StoreException(Kind.BAD_REQUEST, "bad prefix: " + listPrefix);
    }
  }

  static StoreException unknownAttribute(String name, String family, List<String> known) {
    return new StoreException(
        Kind.BAD_REQUEST, "unknown attribute '" + name + "' (" + family + ": " + known + ")");
  }

  /** Reads a request body of known length whole; backends without streaming writes need it so. */
  static byte[] readAll(InputStream body, long length, long max) {
    if (length > max) {
      throw new StoreException(Kind.TOO_LARGE, "body of " + length + " bytes exceeds " + max);
    }
    try {
      byte[] data = body.readNBytes((int) Math.min(max + 1, Integer.MAX_VALUE - 8));
      if (data.length > max) {
        throw new StoreException(Kind.TOO_LARGE, "body exceeds " + max + " bytes");
      }
      return data;
    } catch (IOException e) {
      throw new StoreException(Kind.BAD_REQUEST, "reading the request body: " + e.getMessage(), e);
    }
  }
}
