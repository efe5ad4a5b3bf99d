package io.taskmesh.meshapi;

/** A missing or bad environment variable; the message names the variable. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String variable, String problem) {
    super(variable + ": " + problem);
  }
}
