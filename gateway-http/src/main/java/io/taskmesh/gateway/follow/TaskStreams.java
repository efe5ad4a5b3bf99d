package io.taskmesh.gateway.follow;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.javalin.http.sse.SseHandler;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.http.JavalinSseSink;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    long lastEventId = parseLastEventId(ctx.header("Last-Event-ID"));
    PendingSubscription pending = new PendingSubscription();
    AutoCloseable updates = feed.subscribe(taskId, pending::accept);
    Optional<TaskState> state;
    try {
      // a task created a moment ago may not be folded yet: its first update on the feed opens the
      // stream (FLY tokens reach only streams open when they are sent, so no store read is waited
      // for), bounded as every read of a new task is (NewTaskQueries)
      TaskQueries stored = NewTaskQueries.withoutWaiting(queries);
      state = stored.get(taskId);
      Optional<Duration> wait = NewTaskQueries.waitFor(queries, taskId);
      if (state.isEmpty()
          && wait.isPresent()
          && pending.appeared.await(wait.get().toMillis(), TimeUnit.MILLISECONDS)) {
        state = stored.get(taskId);
      }
    } catch (Exception e) {
      updates.close();
      throw e;
    }
    boolean hidden = visible != null && (state.isEmpty() || !visible.test(state.get()));
    if (hidden || (state.isEmpty() && !pending.sawCreated())) {
      updates.close();
      throw new NotFoundResponse("task not found: " + taskId);
    }
    List<TaskUpdate> history = state.map(TaskState::history).orElse(List.of());
    new SseHandler(
            client -> {
              client.keepAlive();
              List<AutoCloseable> subs = new CopyOnWriteArrayList<>(List.of(updates));
              // the writer unsubscribes when it ends, whichever way (last update, failed write,
              // drain, gateway close): the feeds never outlive the stream they write to
              SseWriter writer =
                  writers.open(
                      new JavalinSseSink(client), () -> subs.forEach(Subscriptions::closeQuietly));
              SseSession session = new SseSession(writer, lastEventId);
              if (withFly) {
                subs.add(fly.subscribe(taskId, session::onFly));
                if (writer.isClosed()) {
                  Subscriptions.closeQuietly(subs.get(subs.size() - 1));
                }
              }
              client.onClose(writer::close);
              pending.handOver(session);
              session.replay(history);
            })
        .handle(ctx);
  }

  @Override
  public void close() {
    writers.close();
  }

  /** Holds updates that arrive between subscribing and the session's start. */
  private static final class PendingSubscription {
    final CountDownLatch appeared = new CountDownLatch(1);
    private final List<TaskUpdate> early = new ArrayList<>();
    private SseSession session;
    private volatile boolean created;

    synchronized void accept(TaskUpdate u) {
      created = created || u.seq() == 1;
      appeared.countDown();
      if (session != null) {
        session.onUpdate(u);
      } else {
        early.add(u);
      }
    }

    boolean sawCreated() {
      return created || appeared.getCount() == 0;
    }

    synchronized void handOver(SseSession s) {
      session = s;
      early.forEach(s::onUpdate);
      early.clear();
    }
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
