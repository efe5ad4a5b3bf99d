package io.taskmesh.devkit;

/** Tear-down for tests and benchmarks. */
public final class Closing {
  private Closing() {}

  /**
   * Closes each that is not null (gateways, databases, child JVMs), keeping on after a failure,
   * which it prints.
   */
  public static void closeAll(AutoCloseable... all) {
    for (AutoCloseable c : all) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        System.err.println("closing " + c + " failed: " + e);
      }
    }
  }
}
