package io.taskmesh.topology;

import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Lists the tasks of one owner (A2A {@code tasks/list}) across every replica ({@link
 * TaskQueries#tasksOf}), newest first ({@code created_at}, then id), one page by offset. Each
 * replica scans its own stores linearly; the pages are cut here.
 */
public final class TaskListing {
  /** One page and the number of matching tasks in all. */
  public record Page(List<TaskState> tasks, int total, int offset) {}

  private final Function<String, List<TaskState>> tasksOf;

  public TaskListing(Function<String, List<TaskState>> tasksOf) {
    this.tasksOf = tasksOf;
  }

  public static TaskListing of(TaskQueries queries) {
    return new TaskListing(queries::tasksOf);
  }

  /**
   * The page of {@code owner}'s tasks (null owner = tasks created without one) that pass {@code
   * filter}, starting at {@code offset}, at most {@code limit} long.
   *
   * @throws ViewUnavailableException while the store is rebalancing or restoring
   */
  public Page list(String owner, Predicate<TaskState> filter, int offset, int limit) {
    if (offset < 0 || limit < 1) {
      throw new IllegalArgumentException("offset must be >= 0 and limit >= 1");
    }
    List<TaskState> matching = new ArrayList<>();
    for (TaskState s : tasksOf.apply(owner)) {
      if (s != null && Objects.equals(owner, s.owner()) && filter.test(s)) {
        matching.add(s);
      }
    }
    matching.sort(NEWEST_FIRST);
    int from = Math.min(offset, matching.size());
    int to = Math.min(matching.size(), from + limit);
    return new Page(List.copyOf(matching.subList(from, to)), matching.size(), from);
  }

  static final Comparator<TaskState> NEWEST_FIRST =
      Comparator.comparing(TaskListing::createdAt).reversed().thenComparing(TaskState::id);

  private static Instant createdAt(TaskState s) {
    try {
      return s.createdAt() == null ? Instant.EPOCH : Times.parse(s.createdAt());
    } catch (RuntimeException e) {
      return Instant.EPOCH;
    }
  }
}
