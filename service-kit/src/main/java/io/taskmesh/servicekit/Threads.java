package io.taskmesh.servicekit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * Named daemon threads: a service's background work (feeds, writers, timers) must never keep the
 * JVM alive after its main thread decided to stop, and a thread dump must say whose thread it is.
 */
public final class Threads {
  private Threads() {}

  /** Every thread it makes is a daemon called {@code name}. */
  public static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** A daemon thread called {@code name} running {@code body}, not yet started. */
  public static Thread newDaemon(String name, Runnable body) {
    return daemon(name).newThread(body);
  }

  /** A daemon thread called {@code name} running {@code body}, started. */
  public static Thread startDaemon(String name, Runnable body) {
    Thread t = newDaemon(name, body);
    t.start();
    return t;
  }

  /**
   * What a step run on another thread (a start beside another) returned, or its own failure: the
   * cause, not the {@link CompletionException} that wraps it.
   */
  public static <T> T joined(CompletableFuture<T> step) {
    try {
      return step.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  public static ExecutorService fixedPool(String name, int threads) {
    return Executors.newFixedThreadPool(threads, daemon(name));
  }

  public static ExecutorService cachedPool(String name) {
    return Executors.newCachedThreadPool(daemon(name));
  }

  public static ExecutorService singleThread(String name) {
    return Executors.newSingleThreadExecutor(daemon(name));
  }

  public static ScheduledExecutorService scheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(daemon(name));
  }

  public static ScheduledExecutorService scheduler(String name, int threads) {
    return Executors.newScheduledThreadPool(threads, daemon(name));
  }
}
