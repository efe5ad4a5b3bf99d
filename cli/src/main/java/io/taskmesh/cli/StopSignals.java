package io.taskmesh.cli;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (INT) and TERM as a request to stop, before the JVM starts shutting down. A shutdown hook
 * is too late for an orderly stop: the embedded Postgres registers a hook of its own, and the JVM
 * runs hooks concurrently, so the database stopped under the kv-connector, mesh-api and gateway
 * that were still closing (503s, a failed deadline scan and reconnect warnings on every Ctrl-C).
 * Here the caller stops everything in order first, then exits.
 */
final class StopSignals {
  private StopSignals() {}

  /**
   * A latch counted down by the first INT or TERM, after {@code onSignal} ran on the signal's
   * thread (what must happen at once, e.g. no more restarts). A signal the JVM was started ignoring
   * stays ignored.
   */
  static CountDownLatch install(Runnable onSignal) {
    CountDownLatch requested = new CountDownLatch(1);
    SignalHandler handler =
        signal -> {
          onSignal.run();
          requested.countDown();
        };
    for (String name : new String[] {"INT", "TERM"}) {
      SignalHandler previous = Signal.handle(new Signal(name), handler);
      if (previous == SignalHandler.SIG_IGN) {
        // e.g. started in the background by a non-interactive shell: keep ignoring Ctrl-C there
        Signal.handle(new Signal(name), SignalHandler.SIG_IGN);
      }
    }
    return requested;
  }
}
