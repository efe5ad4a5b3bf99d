package io.taskmesh.sidecar;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment of a process that runs code we do not control (a Python runtime and its handler,
 * a state connector), built from nothing: the parent's environment holds the gateway's secrets in
 * {@code ./taskmesh dev} (OAuth signing secret, registration token, API keys, database password),
 * and a handler can read its own environment. Only what a child needs to run is copied from the
 * parent; everything else comes from the caller's map.
 */
public final class ChildEnvironment {
  /** What any process needs to find programs, its home, its locale and a temp folder. */
  static final List<String> PROCESS_BASICS = List.of("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR");

  /**
   * The runtime's own settings (runtime spec and {@code taskmesh_runtime.config}) an operator may
   * set on the launcher for every runtime; per-runtime ones (handler, socket) come from the caller.
   */
  static final List<String> RUNTIME_SETTINGS =
      List.of(
          "SVC_LOG_LEVEL",
          "SVC_LOG_FORMAT",
          "SVC_ENABLE_VALIDATION",
          "SVC_SOCKET_CHMOD",
          "SVC_MAX_BODY_BYTES");

  private ChildEnvironment() {}

  /** The process basics of {@code parent} plus {@code own} (which wins). */
  public static Map<String, String> basicsAnd(Map<String, String> parent, Map<String, String> own) {
    return copy(parent, PROCESS_BASICS, own);
  }

  /**
   * For a Python runtime: the basics and the runtime settings of {@code parent}, plus {@code own}.
   */
  public static Map<String, String> forRuntime(
      Map<String, String> parent, Map<String, String> own) {
    Map<String, String> env = copy(parent, RUNTIME_SETTINGS, basicsAnd(parent, Map.of()));
    env.putAll(own);
    return env;
  }

  /** Replaces the environment a {@link ProcessBuilder} would inherit with {@code env}. */
  public static void replace(ProcessBuilder pb, Map<String, String> env) {
    pb.environment().clear();
    pb.environment().putAll(env);
  }

  private static Map<String, String> copy(
      Map<String, String> parent, List<String> names, Map<String, String> own) {
    Map<String, String> env = new HashMap<>();
    for (String name : names) {
      String value = parent.get(name);
      if (value != null) {
        env.put(name, value);
      }
    }
    env.putAll(own);
    return env;
  }
}
