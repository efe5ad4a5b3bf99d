package io.taskmesh.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One entry of the actors file: the Python handler an actor runs, where its module lives, and the
 * state-proxy mounts its runtime gets.
 */
public record ActorSpec(
    String name, String handler, Path dir, Map<String, String> env, List<StateMount> stateProxy) {
  public ActorSpec(String name, String handler, Path dir, Map<String, String> env) {
    this(name, handler, dir, env, List.of());
  }

  public ActorSpec {
    if (name == null || !name.matches("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")) {
      throw new IllegalArgumentException(
          "actor name '" + name + "' must be a DNS label (a-z, 0-9, -)");
    }
    if (name.equals("x-sink") || name.equals("x-sump")) {
      throw new IllegalArgumentException("actor name '" + name + "' is reserved for a crew actor");
    }
    if (handler == null || !handler.contains(".")) {
      throw new IllegalArgumentException(
          "actor '" + name + "': 'handler' must be module.function or module.Class.method");
    }
    env = env == null ? Map.of() : Map.copyOf(env);
    stateProxy = stateProxy == null ? List.of() : List.copyOf(stateProxy);
  }

  /** The same actor with these variables added to (or replacing) its env. */
  public ActorSpec withEnv(Map<String, String> more) {
    Map<String, String> merged = new HashMap<>(env);
    merged.putAll(more);
    return new ActorSpec(name, handler, dir, merged, stateProxy);
  }
}
