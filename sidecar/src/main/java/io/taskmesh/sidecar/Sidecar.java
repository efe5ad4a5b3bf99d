package io.taskmesh.sidecar;

import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.TopicCreator;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An actor's sidecar: consumes {@code svc-{ns}-{actor}} (group of the same name, read_committed),
 * calls the runtime over its Unix socket and routes the result transactionally.
 */
public final class Sidecar implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Sidecar.class);

  private final SidecarConfig config;
  private final RuntimeClient runtime;
  private final GatewayReporter reporter;
  private final ExitHook exitHook;
  private final Duration readyTimeout;
  private TopicCreator admin;
  private TaskEventLog events;
  private ActorLoop loop;

  /**
   * @param runtime client of the runtime socket (closed by the caller)
   * @param reporter progress/FLY/final reporter (closed by the caller)
   * @param exitHook called with 1 after a runtime timeout ({@link ExitHook#SYSTEM} in production)
   * @param readyTimeout how long {@link #start()} waits for the runtime's ready file and socket
   */
  public Sidecar(
      SidecarConfig config,
      RuntimeClient runtime,
      GatewayReporter reporter,
      ExitHook exitHook,
      Duration readyTimeout) {
    this.config = config;
    this.runtime = runtime;
    this.reporter = reporter;
    this.exitHook = exitHook;
    this.readyTimeout = readyTimeout;
  }

  /** Waits for the runtime, creates missing topics, joins the group. Returns once the loop runs. */
  public synchronized void start() {
    runtime.awaitReady(readyTimeout);
    admin = new TopicCreator(config.bootstrapServers());
    KafkaStart.await(admin, config);
    admin.ensure(
        List.of(config.inputTopic(), config.topicOf(Topics.SINK), config.deadLetterTopic()),
        config.topicSpec());
    events = new TaskEventLog(config.bootstrapServers());
    EnvelopeProcessor processor =
        new EnvelopeProcessor(config, runtime, reporter, events, Clock.systemUTC());
    loop = new ActorLoop(config, processor, exitHook, admin);
    loop.start();
    LOG.info(
        "sidecar {} consuming {} (runtime {})",
        config.actorName(),
        config.inputTopic(),
        runtime.socketPath());
  }

  public boolean running() {
    return loop != null && loop.running();
  }

  public SidecarConfig config() {
    return config;
  }

  /** Finishes the current batch, then leaves the group. */
  @Override
  public synchronized void close() {
    if (loop != null) {
      loop.close();
    }
    if (events != null) {
      events.close();
    }
    if (admin != null) {
      admin.close();
    }
  }
}
