package io.taskmesh.connectors;

/** A bad or missing setting; the message names the environment variable. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
