package io.taskmesh.gateway.oauth;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The two scopes the spec defines. They are issued and stored with every token, but as the spec
 * says only token authenticity is checked: no operation requires one scope or the other.
 */
final class Scopes {
  static final List<String> SUPPORTED = List.of("mcp:invoke", "mcp:read");
  static final String ALL = String.join(" ", SUPPORTED);

  private Scopes() {}

  /**
   * {@code requested} in canonical order, or null when it names an unsupported scope or nothing.
   */
  static String normalise(String requested) {
    List<String> words = ClientMetadata.words(requested);
    if (words.isEmpty() || !SUPPORTED.containsAll(words)) {
      return null;
    }
    return String.join(" ", SUPPORTED.stream().filter(words::contains).toList());
  }

  /** Whether every scope of {@code requested} is within {@code allowed}. */
  static boolean within(String requested, String allowed) {
    Set<String> a = new LinkedHashSet<>(ClientMetadata.words(allowed));
    return a.containsAll(ClientMetadata.words(requested));
  }
}
