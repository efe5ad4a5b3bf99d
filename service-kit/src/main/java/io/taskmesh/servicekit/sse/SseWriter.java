package io.taskmesh.servicekit.sse;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordered, bounded writer of one SSE client. Producers (feed threads) only queue and never
 * block on a slow client; one drain task at a time, on a shared executor, writes the frames in the
 * order they were queued. The {@link SsePolicy} bounds the queue: droppable frames past their limit
 * are dropped, and a client too far behind is closed. A frame marked {@code last} closes the stream
 * once written; so does a client that went away or a write that failed. The frames one drain finds
 * queued are handed to the sink one by one and flushed together ({@link SseSink#flush()}): a burst
 * of events costs one write, not one per event.
 */
public final class SseWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SseWriter.class);

  /**
   * One event; {@code droppable}: may be dropped when the client is slow; {@code last}: close after
   * it.
   */
  public record Frame(String event, String data, String id, boolean droppable, boolean last) {
    public static Frame of(String event, String data) {
      return new Frame(event, data, null, false, false);
    }
  }

  private record Comment(String text) {}

  private record Retry(long millis) {}

  private static final Object FINISH = new Object();

  /** The most frames a drain hands the sink between two flushes: a burst is not held back long. */
  public static final int FLUSH_EVERY = 32;

  private final SseSink sink;
  private final Executor executor;
  private final SsePolicy policy;
  private final Runnable onClose;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private int queuedDroppable;
  private boolean draining;
  private boolean closed;
  private boolean finishing;

  /** {@code onClose} runs once when the stream ends, whichever way (e.g. to unsubscribe). */
  public SseWriter(SseSink sink, Executor executor, SsePolicy policy, Runnable onClose) {
    this.sink = sink;
    this.executor = executor;
    this.policy = policy;
    this.onClose = onClose;
  }

  public SsePolicy policy() {
    return policy;
  }

  /** Queues a frame; false when it was not queued (dropped, or the stream is closed or closing). */
  public synchronized boolean send(Frame frame) {
    if (closed || finishing) {
      return false;
    }
    if (frame.droppable() && queuedDroppable >= policy.maxQueuedDroppable()) {
      LOG.warn(
          "SSE client is slow: {} droppable events queued; dropping a '{}' event",
          queuedDroppable,
          frame.event());
      SseMetrics.flyDropped();
      return false;
    }
    if (!enqueue(frame)) {
      return false;
    }
    if (frame.droppable()) {
      queuedDroppable++;
    }
    return true;
  }

  /** Queues a comment line. */
  public synchronized void comment(String text) {
    if (!closed && !finishing) {
      enqueue(new Comment(text));
    }
  }

  /** Queues the policy's keepalive comment. */
  public void keepalive() {
    comment(policy.keepaliveComment());
  }

  /** Closes the stream once everything queued so far is written. */
  public synchronized void finish() {
    if (!closed && !finishing) {
      finishing = true;
      queue.add(FINISH);
      schedule();
    }
  }

  /**
   * Tells the client to reconnect after {@code retryMillis} and closes the stream once what is
   * queued so far (and the {@code retry:} field) is written: the server is going away.
   */
  public synchronized void finishWithRetry(long retryMillis) {
    if (!closed && !finishing) {
      finishing = true;
      queue.add(new Retry(retryMillis));
      queue.add(FINISH);
      schedule();
    }
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  /** Ends the stream now; what is still queued is not written. */
  public void close() {
    if (markClosed()) {
      closeSink();
    }
  }

  private boolean enqueue(Object item) {
    if (queue.size() >= policy.maxQueued()) {
      LOG.warn("SSE client is {} frames behind; closing it", queue.size());
      if (markClosedLocked()) {
        // not on the producer's thread: closing a client may block on its connection
        try {
          executor.execute(this::closeSink);
        } catch (RejectedExecutionException shutDown) {
          closeSink();
        }
      }
      return false;
    }
    queue.add(item);
    schedule();
    return true;
  }

  private void schedule() {
    if (!draining) {
      draining = true;
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException shutDown) {
        draining = false;
      }
    }
  }

  private void drain() {
    int unflushed = 0;
    while (true) {
      Object item;
      synchronized (this) {
        if (closed) {
          draining = false;
          return;
        }
        item = unflushed >= FLUSH_EVERY ? null : queue.poll();
        if (item == null && unflushed == 0) {
          draining = false;
          return;
        }
        if (item instanceof Frame f && f.droppable()) {
          queuedDroppable--;
        }
      }
      if (item == null) {
        // the queue is empty (or a long run): send what the sink gathered, then look again
        if (!flush()) {
          close();
          return;
        }
        unflushed = 0;
        continue;
      }
      Written w = write(item);
      if (w != Written.MORE) {
        if (w == Written.DONE) {
          flush(); // the last frame, and what came before it, still go out
        }
        close();
        return;
      }
      unflushed++;
    }
  }

  /** What became of one item handed to the sink. */
  private enum Written {
    MORE,
    /** The stream is done: the last frame or FINISH was handed over; flush, then close. */
    DONE,
    /** The client went away or the write failed: close, nothing more to flush. */
    GONE
  }

  private Written write(Object item) {
    if (!sink.isOpen()) {
      return Written.GONE;
    }
    if (item == FINISH) {
      return Written.DONE;
    }
    try {
      if (item instanceof Comment c) {
        sink.comment(c.text());
        return Written.MORE;
      }
      if (item instanceof Retry r) {
        sink.retry(r.millis());
        return Written.MORE;
      }
      Frame f = (Frame) item;
      sink.event(f.event(), f.data(), f.id());
      return f.last() ? Written.DONE : Written.MORE;
    } catch (Exception clientGone) {
      logGone(clientGone);
      return Written.GONE;
    }
  }

  private boolean flush() {
    try {
      sink.flush();
      return true;
    } catch (Exception clientGone) {
      logGone(clientGone);
      return false;
    }
  }

  private static void logGone(Exception clientGone) {
    // the first failed write ends the stream (onClose unsubscribes it from its feed): one line,
    // no stack trace, and nothing more is written to this client
    LOG.warn("SSE client write failed ({}); closing the stream", clientGone.toString());
  }

  private synchronized boolean markClosed() {
    return markClosedLocked();
  }

  private boolean markClosedLocked() {
    if (closed) {
      return false;
    }
    closed = true;
    queue.clear();
    queuedDroppable = 0;
    return true;
  }

  private void closeSink() {
    try {
      onClose.run();
    } finally {
      try {
        sink.close();
      } catch (RuntimeException alreadyGone) {
        // the server recycled the response first: the client is gone either way
        LOG.debug("closing an SSE client: {}", alreadyGone.toString());
      }
    }
  }
}
