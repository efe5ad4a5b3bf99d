package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.javalin.http.sse.SseHandler;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.StreamResult;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSE answers of the A2A edge: a task's stream (first results, then live updates and FLY events
 * until the mapper is done; the task followed as every edge follows one, {@link TaskFollower}) and
 * an error as a one-event stream. Every open stream gets a keepalive comment every 15 s (spec); on
 * shutdown every open stream gets {@code retry:} and ends, like the task streams.
 */
final class A2aSse {
  private static final Logger LOG = LoggerFactory.getLogger(A2aSse.class);
  static final Duration KEEPALIVE = SsePolicy.SPEC_KEEPALIVE;

  private final TaskFollower follower;
  private final FlyFeed fly;
  private final SseWriters writers =
      new SseWriters("a2a-sse", 4, SsePolicy.A2A_STREAM.withKeepalive(KEEPALIVE));

  A2aSse(TaskFollower follower, FlyFeed fly) {
    this.follower = follower;
    this.fly = fly;
  }

  /** The open A2A streams, for the gateway's shutdown drain. */
  SseWriters writers() {
    return writers;
  }

  /** Ends every open stream (its feeds unsubscribed) and stops the writer threads. */
  void close() {
    writers.close();
  }

  /**
   * Streams a task: the {@code first} results, then the mapper's events for every live update and
   * FLY event, until the mapper is done. Subscribes before reading the stored state so nothing
   * falls between the two.
   */
  void stream(
      Context ctx,
      A2aWire wire,
      JsonNode requestId,
      String taskId,
      List<? extends StreamResult> first,
      StreamMapper mapper)
      throws Exception {
    new SseHandler(
            client -> {
              client.keepAlive();
              List<AutoCloseable> subs = new CopyOnWriteArrayList<>();
              A2aStream s =
                  new A2aStream(
                      client,
                      wire,
                      requestId,
                      writers,
                      () -> subs.forEach(Subscriptions::closeQuietly));
              client.onClose(s::close);
              // one at a time (feed, FLY and the stored state arrive on different threads): an
              // update that
              // ends the stream must queue its events before another source sees the mapper done
              // and closes
              Consumer<Supplier<List<StreamResult>>> emit =
                  next -> {
                    synchronized (
                        s) { // the stream's lock, then the mapper's: the order every path takes
                      List<StreamResult> events = next.get();
                      if (!events.isEmpty()) {
                        s.send(events);
                      }
                      if (mapper.done()) {
                        s.finish();
                      }
                    }
                  };
              // holding the stream's lock keeps the writer from sending the first event before the
              // subscriptions exist: a client that reacts to it (posts FLY) is then never too early
              synchronized (s) {
                s.send(first);
                // the stored state first, then the live updates newer than it
                subs.add(
                    follower.updates(
                        taskId,
                        0,
                        TaskFollower.anyOwner(),
                        false,
                        state -> state.ifPresent(st -> emit.accept(() -> mapper.onState(st))),
                        u -> emit.accept(() -> mapper.onUpdate(u))));
                subs.add(fly.subscribe(taskId, f -> emit.accept(() -> mapper.onFly(f))));
              }
              if (s.isClosed()) {
                // ended (client gone, shutdown) while it subscribed: its onClose ran before
                subs.forEach(Subscriptions::closeQuietly);
              }
            })
        .handle(ctx);
  }

  /** The error as the one event of a stream; false when the stream could not be opened. */
  boolean error(Context ctx, A2aWire wire, JsonNode requestId, A2aException e) {
    try {
      new SseHandler(
              client -> {
                client.keepAlive();
                A2aStream s = new A2aStream(client, wire, requestId, writers, () -> {});
                s.sendError(e);
                s.finish();
              })
          .handle(ctx);
      return true;
    } catch (Exception failed) {
      LOG.debug("A2A: could not answer an error as SSE: {}", failed.toString());
      return false;
    }
  }
}
