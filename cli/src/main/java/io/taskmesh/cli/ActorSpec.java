package io.taskmesh.cli;

import java.nio.file.Path;
import java.util.Map;

/** One entry of the actors file: the Python handler an actor runs and where its module lives. */
public record ActorSpec(String name, String handler, Path dir, Map<String, String> env) {
  public ActorSpec {
    if (name == null || !name.matches("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")) {
      throw new IllegalArgumentException("actor name '" + name + "' must be a DNS label (a-z, 0-9, -)");
    }
    if (name.equals("x-sink") || name.equals("x-sump")) {
      throw new IllegalArgumentException("actor name '" + name + "' is reserved for a crew actor");
    }
    if (handler == null || !handler.contains(".")) {
      throw new IllegalArgumentException("actor '" + name + "': 'handler' must be module.function or module.Class.method");
    }
    env = env == null ? Map.of() : Map.copyOf(env);
  }
}
