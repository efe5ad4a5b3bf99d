package io.taskmesh.topology;

import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The running task view of one gateway process: the Streams fold, the producer that appends events,
 * and the live update feed. Implements the ports the HTTP layer uses; each read goes to this
 * replica's stores or to the key's owner.
 */
public final class TaskView implements TaskQueries, TaskCommands, AutoCloseable {
  private final TaskEventAppender appender;
  private final FoldStreams fold;
  private final KafkaUpdateFeed feed;
  private final KeyOwners owners;
  private final LocalTaskStore local;
  private final RemoteTaskQueries remote;

  private TaskView(TaskViewConfig config, TaskTopics topics, boolean replay) {
    this.remote = new RemoteTaskQueries(config.internalToken());
    this.appender = new TaskEventAppender(config, topics);
    this.feed = new KafkaUpdateFeed(config.bootstrapServers(), topics.updates());
    // the live view's subscribers get its own fold's updates at once (KafkaUpdateFeed)
    this.fold =
        new FoldStreams(
            config, topics, replay, replay ? TaskTopology.FoldedUpdates.NONE : feed::folded);
    this.owners = new KeyOwners(fold.streams(), topics.storeName(), config.applicationServer());
    this.local = new LocalTaskStore(fold.streams(), topics);
  }

  /** Creates the topics when missing, starts the fold and the feed, and waits until both run. */
  public static TaskView start(TaskViewConfig config, TaskTopics topics, Duration timeout) {
    return start(config, topics, timeout, false);
  }

  /**
   * The fold alone, without the live update feed and with a longer commit interval: for a replay,
   * where nobody subscribes and the feed would only read back every update the fold writes.
   */
  static TaskView startFoldOnly(TaskViewConfig config, TaskTopics topics, Duration timeout) {
    return start(config, topics, timeout, true);
  }

  private static TaskView start(
      TaskViewConfig config, TaskTopics topics, Duration timeout, boolean replay) {
    TaskTopicSetup.ensure(config, topics);
    TaskView view = new TaskView(config, topics, replay);
    try {
      if (!replay) {
        view.feed.start();
      }
      view.fold.start(timeout);
      return view;
    } catch (RuntimeException e) {
      view.close();
      throw e;
    }
  }

  public UpdateFeed feed() {
    return feed;
  }

  /**
   * Finds the key's owner ({@code queryMetadataForKey}); answers from the local store when it is
   * this replica, else forwards to the owner's {@code GET /internal/tasks/{id}}. Never a 404 that
   * is only a wrong owner: an unknown or moving owner is a {@link ViewUnavailableException}.
   */
  @Override
  public Optional<TaskState> get(String taskId) {
    if (owners.single()) {
      return local.get(taskId, null);
    }
    KeyQueryMetadata md = owners.of(taskId);
    if (owners.isSelf(md.activeHost())) {
      return local.get(taskId, md.partition());
    }
    return remote.get(md.activeHost(), taskId);
  }

  @Override
  public Optional<TaskState> getWithoutHistory(String taskId) {
    if (owners.single()) {
      return local.get(taskId, null, false);
    }
    KeyQueryMetadata md = owners.of(taskId);
    if (owners.isSelf(md.activeHost())) {
      return local.get(taskId, md.partition(), false);
    }
    return remote.get(md.activeHost(), taskId);
  }

  @Override
  public Optional<TaskState> getLocal(String taskId) {
    if (owners.single()) {
      return local.get(taskId, null);
    }
    KeyQueryMetadata md = owners.of(taskId);
    if (!owners.isSelf(md.activeHost())) {
      throw new ViewUnavailableException(
          "task "
              + taskId
              + " is owned by "
              + md.activeHost()
              + ", not by this replica; retry shortly",
          null);
    }
    return local.get(taskId, md.partition());
  }

  @Override
  public Optional<Boolean> ownsLocally(String taskId) {
    if (owners.single()) {
      return Optional.of(true);
    }
    try {
      return Optional.of(owners.isSelf(owners.of(taskId).activeHost()));
    } catch (ViewUnavailableException e) {
      return Optional.empty();
    }
  }

  @Override
  public void append(TaskEvent event) {
    appender.append(event);
  }

  /** How many tasks this replica's local stores hold (a full scan, without their histories). */
  public int localTaskCount() {
    return local.count();
  }

  /**
   * Every task in this replica's local stores (the partitions it owns), sorted by id: for checks
   * and tools (replay verification), linear in the number of tasks.
   */
  public List<TaskState> localTasks() {
    List<TaskState> out = local.matching(s -> true);
    out.sort(Comparator.comparing(TaskState::id));
    return out;
  }

  @Override
  public List<TaskState> localTasksOf(String owner) {
    return local.matching(s -> Objects.equals(owner, s.owner()));
  }

  /**
   * This replica's tasks of the owner plus every other replica's ({@code GET
   * /internal/tasks?owner=} on each {@code application.server} Streams knows of). Each replica
   * scans only its active stores, so a task is counted once.
   */
  @Override
  public List<TaskState> tasksOf(String owner) {
    List<TaskState> out = new ArrayList<>(localTasksOf(owner));
    if (owners.single()) {
      return out;
    }
    for (HostInfo replica : owners.otherReplicas()) {
      out.addAll(remote.tasksOf(replica, owner));
    }
    return out;
  }

  public KafkaStreams.State state() {
    return fold.state();
  }

  @Override
  public void close() {
    feed.close();
    fold.close();
    appender.close();
  }
}
