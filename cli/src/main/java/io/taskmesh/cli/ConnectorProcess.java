package io.taskmesh.cli;

import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.sidecar.ChildEnvironment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One mount's connector as {@code taskmesh connector <type>} in a child JVM, restarted when it
 * dies, as an orchestrator restarts a pod's container. A child process rather than a thread of dev:
 * each connector is its own process in a deployment, a connector that crashes or is killed takes
 * nothing else with it, and the runtime sees exactly what it sees there (a socket that goes away
 * and comes back).
 */
final class ConnectorProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectorProcess.class);

  /** Small and quick to start: a connector only copies bytes between two sockets. */
  private static final List<String> JVM_OPTIONS =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration RESTART_DELAY = Duration.ofMillis(500);

  private final String label;
  private final StateMount mount;
  private final Path socket;
  private final Map<String, String> env;
  private final Path log;
  private final LongConsumer onStart;
  private ChildJvm jvm;
  private int restarts;
  private volatile boolean closed;

  private ConnectorProcess(
      String label,
      StateMount mount,
      Path socket,
      Map<String, String> env,
      Path log,
      LongConsumer started) {
    this.label = label;
    this.mount = mount;
    this.socket = socket;
    this.env = env;
    this.log = log;
    this.onStart = started;
  }

  /**
   * Starts the connector and returns once it accepts on its socket; fails with its log's tail.
   * {@code started} is told the pid of each JVM started, restarts included.
   */
  static ConnectorProcess start(
      String label,
      StateMount mount,
      Path socket,
      Map<String, String> env,
      Path log,
      LongConsumer started) {
    ConnectorProcess c = new ConnectorProcess(label, mount, socket, env, log, started);
    c.startAndAwait();
    return c;
  }

  private synchronized void startAndAwait() {
    try {
      Files.createDirectories(socket.getParent());
      Files.deleteIfExists(
          socket); // a killed connector leaves its socket file: wait for the new one
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChildJvm started =
        ChildJvm.start(
            Main.class.getName(),
            JVM_OPTIONS,
            List.of("connector", mount.connectorType()),
            // its own settings only: dev's environment holds the gateway's secrets
            ChildEnvironment.basicsAnd(System.getenv(), env),
            log,
            false);
    onStart.accept(started.pid());
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!accepting()) {
      if (!started.isAlive() || System.nanoTime() > deadline) {
        started.close();
        throw new IllegalStateException(
            "state connector "
                + label
                + " ("
                + mount.connectorType()
                + ") did not start"
                + (started.isAlive() ? "" : ", exit " + started.exitValue())
                + "; log "
                + log
                + ":\n"
                + started.tail(20));
      }
      pause(50);
    }
    jvm = started;
    ProcessHandle.of(started.pid())
        .ifPresent(h -> h.onExit().thenRun(() -> restartAfterExit(started)));
  }

  private void restartAfterExit(ChildJvm exited) {
    synchronized (this) {
      if (closed || exited != jvm) {
        return;
      }
      restarts++;
      LOG.warn(
          "state connector {} exited ({}); restarting it (restart {})",
          label,
          exited.exitValue(),
          restarts);
    }
    pause(RESTART_DELAY.toMillis());
    synchronized (this) {
      if (closed) {
        return;
      }
      try {
        startAndAwait();
      } catch (RuntimeException e) {
        LOG.error("state connector {} could not be restarted: {}", label, e.getMessage());
      }
    }
  }

  private boolean accepting() {
    if (!Files.exists(socket)) {
      return false;
    }
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      return ch.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  StateMount mount() {
    return mount;
  }

  Path socket() {
    return socket;
  }

  /** The pid of the connector running now. */
  synchronized long pid() {
    return jvm.pid();
  }

  /** How often it has been restarted after dying. */
  synchronized int restarts() {
    return restarts;
  }

  /** Waits until a connector (a restarted one too) accepts on the socket again. */
  boolean awaitAccepting(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      synchronized (this) {
        if (jvm != null && jvm.isAlive() && accepting()) {
          return true;
        }
      }
      pause(50);
    }
    return false;
  }

  /**
   * Dev is stopping: a connector that dies from now on (Ctrl-C signals the whole group) stays down.
   * Not synchronized: a restart in progress holds the lock while the new JVM starts.
   */
  void refuseRestarts() {
    closed = true;
  }

  @Override
  public void close() {
    ChildJvm running;
    synchronized (this) {
      closed = true;
      running = jvm;
    }
    if (running != null) {
      running.close();
    }
  }

  private static void pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(
          millis); // waiting on a child process: it has no event to wait for
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
