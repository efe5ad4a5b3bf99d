package io.taskmesh.devkit;

import java.util.HashMap;
import java.util.Map;

/** Environments for config tests: a base every case needs, plus the case's own variables. */
public final class TestEnv {
  private TestEnv() {}

  /**
   * {@code base} with {@code overrides} applied: name, value pairs; a null value removes the name
   * (to test a missing required variable).
   */
  public static Map<String, String> of(Map<String, String> base, String... overrides) {
    if (overrides.length % 2 != 0) {
      throw new IllegalArgumentException("overrides come in name, value pairs");
    }
    Map<String, String> env = new HashMap<>(base);
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        env.remove(overrides[i]);
      } else {
        env.put(overrides[i], overrides[i + 1]);
      }
    }
    return env;
  }
}
