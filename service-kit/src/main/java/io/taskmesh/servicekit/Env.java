package io.taskmesh.servicekit;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Typed reads of environment variables. Every bad value fails with a {@link ConfigException} whose
 * message starts with the variable's name, so a service that will not start says which setting to
 * fix. Values are trimmed; an unset or blank optional value takes its default.
 */
public final class Env {
  private final Map<String, String> vars;

  public Env(Map<String, String> vars) {
    this.vars = Map.copyOf(vars);
  }

  public static Env of(Map<String, String> vars) {
    return new Env(vars);
  }

  /** Whether the variable is set at all (even blank). */
  public boolean isSet(String name) {
    return vars.containsKey(name);
  }

  /**
   * The trimmed value; {@code dflt} only when the variable is unset (a blank value stays blank).
   */
  public String string(String name, String dflt) {
    String v = vars.get(name);
    return v == null ? dflt : v.trim();
  }

  /** The trimmed value, or null when unset or blank. */
  public String optional(String name) {
    String v = vars.get(name);
    return v == null || v.isBlank() ? null : v.trim();
  }

  /** The trimmed value; unset or blank fails. */
  public String required(String name) {
    String v = optional(name);
    if (v == null) {
      throw new ConfigException(name, "required but not set");
    }
    return v;
  }

  /** An integer in {@code [min, max]}; unset or blank: {@code dflt}. */
  public int integer(String name, int dflt, int min, int max) {
    String v = vars.get(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    int n;
    try {
      n = Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(name, "'" + v + "' is not an integer");
    }
    if (n < min || n > max) {
      throw new ConfigException(name, "'" + v + "' is outside " + min + ".." + max);
    }
    return n;
  }

  /** {@code true/false}, {@code yes/no}, {@code 1/0} (any case); unset or blank: {@code dflt}. */
  public boolean bool(String name, boolean dflt) {
    String v = optional(name);
    if (v == null) {
      return dflt;
    }
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new ConfigException(name, "'" + v + "' is not a boolean (true or false)");
    };
  }

  /**
   * A duration in the {@link Durations} syntax; unset or blank: {@code dflt}, parsed the same way.
   */
  public Duration duration(String name, String dflt) {
    String v = optional(name);
    return Durations.parse(name, v == null ? dflt : v);
  }

  /**
   * One of {@code type}'s constants by its lower-case name; unset or blank: {@code dflt} (null:
   * required).
   */
  public <E extends Enum<E>> E choice(String name, Class<E> type, E dflt) {
    String v = optional(name);
    String allowed =
        String.join(
            ", ",
            Arrays.stream(type.getEnumConstants())
                .map(c -> c.name().toLowerCase(Locale.ROOT))
                .toList());
    if (v == null) {
      if (dflt == null) {
        throw new ConfigException(name, "required: one of " + allowed);
      }
      return dflt;
    }
    for (E c : type.getEnumConstants()) {
      if (c.name().toLowerCase(Locale.ROOT).equals(v)) {
        return c;
      }
    }
    throw new ConfigException(name, "must be one of " + allowed + ", not '" + v + "'");
  }

  /**
   * Comma-separated, each item trimmed, empty items left out; unset: {@code dflt} split the same
   * way.
   */
  public List<String> list(String name, String dflt) {
    String v = vars.getOrDefault(name, dflt);
    if (v == null || v.isBlank()) {
      return List.of();
    }
    return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
