package io.taskmesh.gateway.follow;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.javalin.http.sse.SseHandler;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.http.JavalinSseSink;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * SSE of one task ({@code /stream/{id}}, {@code /mesh/{id}/stream}): subscribe to the live feed
 * first, then replay the stored history, then live updates; close after the final one.
 */
public final class TaskStreams implements AutoCloseable {
  /** The spec's keepalive interval. */
  public static final Duration KEEPALIVE = SsePolicy.SPEC_KEEPALIVE;

  private final TaskQueries queries;
  private final UpdateFeed feed;
  private final FlyBus fly;
  private final SseWriters writers;

  public TaskStreams(TaskQueries queries, UpdateFeed feed, FlyBus fly, Duration keepaliveEvery) {
    this.queries = queries;
    this.feed = feed;
    this.fly = fly;
    this.writers = new SseWriters("sse", 4, SsePolicy.TASK_STREAM.withKeepalive(keepaliveEvery));
  }

  /** Answers 404 before any SSE header when the task does not exist. */
  public void stream(Context ctx, String taskId, boolean withFly) throws Exception {
    stream(ctx, taskId, withFly, null);
  }

  /**
   * As above; with {@code visible} set, a task it rejects answers the same 404 as an unknown one,
   * so a client cannot tell that another client's task exists.
   */
  public void stream(Context ctx, String taskId, boolean withFly, Predicate<TaskState> visible)
      throws Exception {
    // a task created a moment ago may not be folded yet: its first update on the feed opens the
    // stream (StreamFollow.open)
    StreamFollow follow =
        StreamFollow.open(queries, feed, taskId, parseLastEventId(ctx.header("Last-Event-ID")));
    Optional<TaskState> state = follow.state();
    boolean hidden = visible != null && (state.isEmpty() || !visible.test(state.get()));
    if (hidden || !follow.exists()) {
      follow.close();
      throw new NotFoundResponse("task not found: " + taskId);
    }
    new SseHandler(
            client -> {
              client.keepAlive();
              List<AutoCloseable> subs = new CopyOnWriteArrayList<>(List.of(follow));
              // the writer unsubscribes when it ends, whichever way (last update, failed write,
              // drain, gateway close): the feeds never outlive the stream they write to
              SseWriter writer =
                  writers.open(
                      new JavalinSseSink(client), () -> subs.forEach(Subscriptions::closeQuietly));
              SseSession session = new SseSession(writer);
              if (withFly) {
                subs.add(fly.subscribe(taskId, session::onFly));
                if (writer.isClosed()) {
                  Subscriptions.closeQuietly(subs.get(subs.size() - 1));
                }
              }
              client.onClose(writer::close);
              follow.start(session::onUpdate);
            })
        .handle(ctx);
  }

  @Override
  public void close() {
    writers.close();
  }

  private static long parseLastEventId(String header) {
    if (header == null || header.isBlank()) {
      return 0;
    }
    try {
      return Math.max(0, Long.parseLong(header.trim()));
    } catch (NumberFormatException e) {
      return 0; // an id we never issued: replay everything
    }
  }

  /** The open task streams, for the gateway's shutdown drain. */
  public SseWriters writers() {
    return writers;
  }
}
