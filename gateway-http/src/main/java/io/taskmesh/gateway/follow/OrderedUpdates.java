package io.taskmesh.gateway.follow;

import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * A task's updates, each once and in sequence order, from two sources that overlap: the stored
 * history and the live feed subscribed before it was read. Live updates that arrive before the
 * history are held back; anything at or below the last one passed on (or the client's starting
 * point, e.g. its {@code Last-Event-ID}) is a duplicate and is dropped.
 */
public final class OrderedUpdates {
  private final Consumer<TaskUpdate> next;
  private final List<TaskUpdate> heldBack = new ArrayList<>();
  private boolean replayed;
  private long lastPassed;

  /**
   * @param afterSeq the last sequence number the receiver already has (0: none)
   */
  public OrderedUpdates(long afterSeq, Consumer<TaskUpdate> next) {
    this.lastPassed = afterSeq;
    this.next = next;
  }

  /** The stored history; then whatever arrived live meanwhile. Called once. */
  public synchronized void replay(List<TaskUpdate> history) {
    replay(history, 0);
  }

  /**
   * The stored history, then whatever arrived live meanwhile past {@code storedSeq}, the sequence
   * number of the stored state the history came from: a receiver that took that state whole passes
   * no history and gets only what is newer. Called once.
   */
  public synchronized void replay(List<TaskUpdate> history, long storedSeq) {
    List<TaskUpdate> stored = new ArrayList<>(history);
    stored.sort(Comparator.comparingLong(TaskUpdate::seq));
    stored.forEach(this::pass);
    lastPassed = Math.max(lastPassed, storedSeq);
    replayed = true;
    heldBack.sort(Comparator.comparingLong(TaskUpdate::seq));
    heldBack.forEach(this::pass);
    heldBack.clear();
  }

  public synchronized void live(TaskUpdate update) {
    if (replayed) {
      pass(update);
    } else {
      heldBack.add(update);
    }
  }

  private void pass(TaskUpdate u) {
    if (u.seq() <= lastPassed) {
      return;
    }
    lastPassed = u.seq();
    next.accept(u);
  }
}
