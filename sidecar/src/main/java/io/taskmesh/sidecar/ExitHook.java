package io.taskmesh.sidecar;

/**
 * How the process ends after a runtime timeout; {@code System::exit} in production, observable in
 * tests.
 */
@FunctionalInterface
public interface ExitHook {
  ExitHook SYSTEM = System::exit;

  void exit(int status);
}
