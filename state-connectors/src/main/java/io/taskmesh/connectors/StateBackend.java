package io.taskmesh.connectors;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/** The spec's connector interface, one implementation per backend family. */
public interface StateBackend extends AutoCloseable {
  /** Size of a key or a simulated directory (a prefix that has keys under it). */
  record Stat(long size, boolean isFile) {}

  record Listing(List<String> keys, List<String> prefixes) {}

  /** An open object: the caller streams {@code body} and must close it. */
  record StoredObject(long length, String contentType, InputStream body) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      body.close();
    }
  }

  StoredObject read(String key);

  /**
   * Writes the body under the key.
   *
   * @param length the body size, or -1 when unknown (chunked upload)
   * @param exclusive write only when the key is absent, else {@link StoreException.Kind#CONFLICT}
   */
  void write(String key, InputStream body, long length, boolean exclusive, String contentType);

  Optional<Stat> stat(String key);

  Listing list(String prefix, String delimiter);

  void delete(String key);

  List<String> attributes(String key);

  String attribute(String key, String name);

  void setAttribute(String key, String name, String value);

  @Override
  void close();
}
