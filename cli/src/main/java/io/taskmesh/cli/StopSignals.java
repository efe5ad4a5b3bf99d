package io.taskmesh.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;

/**
 * Ctrl-C (INT) and TERM as a request to stop, before the JVM starts shutting down. A shutdown hook
 * is too late for an orderly stop: the embedded Postgres registers a hook of its own, and the JVM
 * runs hooks concurrently, so the database stopped under the kv-connector, mesh-api and gateway
 * that were still closing (503s, a failed deadline scan and reconnect warnings on every Ctrl-C).
 * Here the caller stops everything in order first, then exits.
 *
 * <p>The JDK's only way to do that is {@code sun.misc.Signal} (module jdk.unsupported). It is
 * reached by reflection: javac warns about every direct use of it, a warning no annotation
 * silences, and main code compiles with warnings as errors.
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
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method handle = signal.getMethod("handle", signal, handlerType);
      Object ignore = handlerType.getField("SIG_IGN").get(null);
      Object handler =
          Proxy.newProxyInstance(
              StopSignals.class.getClassLoader(),
              new Class<?>[] {handlerType},
              onHandle(
                  () -> {
                    onSignal.run();
                    requested.countDown();
                  }));
      for (String name : new String[] {"INT", "TERM"}) {
        Object sig = signal.getConstructor(String.class).newInstance(name);
        Object previous = handle.invoke(null, sig, handler);
        if (previous == ignore) {
          // e.g. started in the background by a non-interactive shell: keep ignoring Ctrl-C there
          handle.invoke(null, sig, ignore);
        }
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot handle INT and TERM on this JVM", e);
    }
    return requested;
  }

  /**
   * A {@code SignalHandler} whose {@code handle} runs {@code action}; Object's methods as usual.
   */
  private static InvocationHandler onHandle(Runnable action) {
    return (proxy, method, args) ->
        switch (method.getName()) {
          case "handle" -> {
            action.run();
            yield null;
          }
          case "equals" -> proxy == args[0];
          case "hashCode" -> System.identityHashCode(proxy);
          default -> "StopSignals handler";
        };
  }
}
