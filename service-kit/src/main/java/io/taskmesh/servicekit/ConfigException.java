package io.taskmesh.servicekit;

/**
 * A missing or bad environment variable; the message starts with the variable's name. An {@link
 * IllegalArgumentException}, so start-up code that reports bad arguments reports it too.
 */
public final class ConfigException extends IllegalArgumentException {
  private final String variable;

  public ConfigException(String variable, String problem) {
    super(variable + ": " + problem);
    this.variable = variable;
  }

  public String variable() {
    return variable;
  }
}
