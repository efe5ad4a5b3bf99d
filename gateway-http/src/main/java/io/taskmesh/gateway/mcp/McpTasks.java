package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.taskmesh.gateway.follow.PageToken;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.gateway.follow.TaskOwners;
import io.taskmesh.gateway.mcp.wire.LogMessageParams;
import io.taskmesh.gateway.mcp.wire.McpTask;
import io.taskmesh.gateway.mcp.wire.ProgressParams;
import io.taskmesh.gateway.mcp.wire.TaskList;
import io.taskmesh.gateway.mcp.wire.ToolResult;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * MCP tasks (2025-11-25, basic/utilities/tasks) over our tasks: the MCP task id is the taskmesh
 * task id, every operation sees only the caller's own tasks (a foreign task is "not found"), and
 * what a client hears about a task comes from the gateway's update feed.
 */
final class McpTasks {
  static final int PAGE_SIZE = 50;
  private static final Duration CANCEL_WAIT = Duration.ofSeconds(10);

  private final TaskQueries queries;
  private final TaskCommands commands;
  private final TaskListing listing;
  private final BiConsumer<String, JsonNode> resume;
  private final BiFunction<String, Consumer<JsonNode>, AutoCloseable> flies;
  private final RequestStates states;
  private final TaskFollower follower;

  /**
   * @param notifier runs what an update triggers (writes to client streams), off the feed's thread
   * @param resume hands input to a paused task
   * @param flies subscribes to a task's live FLY events (tokens)
   */
  McpTasks(
      TaskQueries queries,
      TaskCommands commands,
      UpdateFeed feed,
      Executor notifier,
      BiConsumer<String, JsonNode> resume,
      BiFunction<String, Consumer<JsonNode>, AutoCloseable> flies,
      RequestStates states,
      ScheduledExecutorService timers) {
    this.follower = new TaskFollower(queries, feed, notifier, timers);
    this.resume = resume;
    this.states = states;
    this.flies = flies;
    this.queries = queries;
    this.commands = commands;
    this.listing = TaskListing.of(queries);
  }

  /**
   * The caller's task a retried call's {@code requestState} names; -32602 when the state is not one
   * this gateway signed (altered, or made up) or names no task the caller may see.
   */
  TaskState paused(JsonNode params, String owner) {
    JsonNode state = params.get("requestState");
    RequestStates.Paused named =
        verified(state != null && state.isTextual() ? state.asText() : null);
    return visible(named.taskId(), owner);
  }

  /** The sequence number of the pause a (verified) {@code requestState} answers. */
  long pausedAt(String requestState) {
    return verified(requestState).seq();
  }

  /** The pause a {@code requestState} names; -32602 when it is not one this gateway signed. */
  private RequestStates.Paused verified(String state) {
    return (state != null ? states.verify(state) : Optional.<RequestStates.Paused>empty())
        .orElseThrow(
            () ->
                McpError.invalidParams(
                    "'requestState' failed its integrity check: send back the requestState of"
                        + " the input_required result unchanged"));
  }

  /** The caller's task; -32602 when there is none with that id it may see. */
  TaskState visible(JsonNode params, String owner) {
    JsonNode id = params == null ? null : params.get("taskId");
    if (id == null || !id.isTextual() || id.asText().isBlank()) {
      throw McpError.invalidParams("'taskId' must be the id of a task");
    }
    return visible(id.asText(), owner);
  }

  private TaskState visible(String id, String owner) {
    return find(id, owner)
        .orElseThrow(() -> McpError.invalidParams("Failed to retrieve task: Task not found"));
  }

  /**
   * The task if the owner may see it. A task started a moment ago may not be folded yet: the
   * gateway's task reads wait for it ({@code NewTaskQueries}), so a {@code tasks/get} right after
   * the {@code CreateTaskResult} finds it.
   */
  Optional<TaskState> find(String id, String owner) {
    return queries.get(id).filter(s -> visibleTo(s, owner));
  }

  boolean visibleTo(TaskState s, String owner) {
    return TaskOwners.visibleTo(s, owner);
  }

  McpTask get(JsonNode params, String owner) {
    return McpTaskViews.task(visible(params, owner));
  }

  /** {@code tasks/list}: newest first, {@link #PAGE_SIZE} a page, the cursor an opaque offset. */
  TaskList list(JsonNode params, String owner) {
    int offset = offset(params == null ? null : params.get("cursor"));
    TaskListing.Page page = listing.list(owner, s -> true, offset, PAGE_SIZE);
    int next = page.offset() + page.tasks().size();
    return new TaskList(
        page.tasks().stream().map(McpTaskViews::task).toList(),
        next < page.total() ? PageToken.encode(next) : null);
  }

  /**
   * {@code tasks/cancel}: -32602 for a finished task; else appends the cancel and answers once the
   * task is final (the spec wants it cancelled before the answer), normally as cancelled.
   */
  CompletableFuture<McpTask> cancel(JsonNode params, String owner) {
    TaskState s = visible(params, owner);
    if (s.status() != null && s.status().isFinal()) {
      throw McpError.invalidParams(
          "Cannot cancel task: it is already " + McpTaskViews.status(s.status()));
    }
    commands.cancel(s.id(), "cancelled by the MCP client");
    return terminal(s.id(), owner)
        .orTimeout(CANCEL_WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .thenApply(McpTaskViews::task);
  }

  /**
   * {@code tasks/result}: completes once the task is terminal, with the tool result. While it
   * waits, each pause of the task (input_required) is an {@code elicitation/create} to a client
   * that declared elicitation; an accepted answer's content is the input the task resumes with.
   */
  CompletableFuture<ToolResult> result(JsonNode params, McpSession session) {
    TaskState s = visible(params, session.owner());
    CompletableFuture<TaskState> done = terminal(s.id(), session.owner());
    if (session.capabilities() != null) {
      McpInputAsker asker = new McpInputAsker(s.id(), session, resume);
      AutoCloseable watching =
          follower.states(s.id(), TaskFollower.ownedBy(session.owner()), asker::onState);
      done.whenComplete((state, e) -> Subscriptions.closeQuietly(watching));
    }
    return done.thenApply(McpTaskViews::toolResult);
  }

  /**
   * The answer of a plain (not task-augmented) {@code tools/call}: waits for the task up to {@code
   * call.waitAtMost()}. Progress, when the call has a token, goes to {@code to} as the task moves
   * and reaches 100 for a success before the answer. A pause asks the client through {@code
   * elicitation/create} when {@code elicitFrom} declared elicitation (an accepted answer resumes
   * the task and the wait goes on); a 2026-07-28 client that can elicit gets an {@code
   * input_required} result (its retry with the answer continues the task); otherwise the answer is
   * the task's question. Past the wait: the task's handle and how to follow it.
   */
  CompletableFuture<Object> answer(
      String id, String owner, PlainCall call, Consumer<String> to, McpSession elicitFrom) {
    // a ToolResult, or (2026-07-28) an InputRequiredResult
    CompletableFuture<Object> answer = new CompletableFuture<>();
    Consumer<TaskState> progress = s -> {};
    if (call.progressToken() != null) {
      // the first progress names the task, so a client can follow it by other means meanwhile
      to.accept(
          notification(
              "notifications/progress",
              ProgressParams.percent(call.progressToken(), 0, "task " + id + " started")));
      progress = follow(id, owner, call.progressToken(), false, to, 0);
    }
    if (call.progressToken() != null || (elicitFrom != null && elicitFrom.hearsInfo())) {
      // the flow's tokens as they come, as log messages of the call (they are not progress: they
      // do not move the task on, and progress must grow with each notification)
      AutoCloseable tokens = flies.apply(id, fly -> to.accept(flyMessage(id, fly)));
      answer.whenComplete((r, e) -> Subscriptions.closeQuietly(tokens));
    }
    Consumer<TaskState> last = progress;
    McpInputAsker asker = elicitFrom != null ? new McpInputAsker(id, elicitFrom, resume) : null;
    Consumer<TaskState> onState =
        s -> {
          if (s.status() != null && s.status().isFinal()) {
            last.accept(s); // the last progress goes out before the answer
            answer.complete(McpTaskViews.answer(s));
          } else if (s.status() == TaskStatus.PAUSED && s.seq() > call.answeredSeq()) {
            if (asker != null && asker.canAsk(s)) {
              asker.onState(s);
            } else if (call.takesInputRequired(s)) {
              answer.complete(
                  McpTaskViews.inputRequired(
                      PausedInput.requests(s, call.clientCapabilities()),
                      states.sign(s.id(), s.seq())));
            } else {
              answer.complete(McpTaskViews.asking(s, call.declaredSchema()));
            }
          }
        };
    // the stored state first (updates folded before the subscription), then the state after each
    // update that can make it final or paused: onState acts on no other
    AutoCloseable watching =
        follower.statesWithoutHistory(
            id,
            TaskFollower.ownedBy(owner),
            onState,
            u -> TaskFollower.mayBeFinal(u) || u.status() == TaskStatus.PAUSED);
    answer.completeOnTimeout(
        McpTaskViews.stillRunning(id, call.waitAtMost(), call.declaredSchema()),
        call.waitAtMost().toMillis(),
        TimeUnit.MILLISECONDS);
    answer.whenComplete((r, e) -> Subscriptions.closeQuietly(watching));
    return answer;
  }

  /**
   * How a plain call waits: its progress token (or null), the longest wait, and whether its tool
   * declares an output schema of its own.
   */
  record PlainCall(
      JsonNode progressToken,
      Duration waitAtMost,
      boolean declaredSchema,
      JsonNode clientCapabilities,
      long answeredSeq) {

    PlainCall(JsonNode progressToken, Duration waitAtMost, boolean declaredSchema) {
      this(progressToken, waitAtMost, declaredSchema, null, -1);
    }

    /**
     * Whether the pause of {@code s} is answered as an {@code input_required} result: the call came
     * with the client's capabilities (2026-07-28) and they cover every request of the pause.
     */
    boolean takesInputRequired(TaskState s) {
      return PausedInput.askable(s, clientCapabilities);
    }

    /**
     * The same call, made with the client capabilities of its {@code _meta} (2026-07-28; null: none
     * declared), continuing after the pause of update {@code seq} was answered (-1: none).
     */
    PlainCall continuing(JsonNode capabilities, long seq) {
      return new PlainCall(progressToken, waitAtMost, declaredSchema, capabilities, seq);
    }
  }

  /** Completes with the task's state once it is final (at once when it already is). */
  CompletableFuture<TaskState> terminal(String id, String owner) {
    return follower.finalState(id, TaskFollower.ownedBy(owner)).thenApply(Optional::orElseThrow);
  }

  /**
   * Follows a task until it is final: each update with more progress is a {@code
   * notifications/progress} for the call's token (when it had one), each change of MCP status a
   * {@code notifications/tasks/status} (for task-augmented calls).
   */
  void follow(String id, String owner, JsonNode progressToken, boolean statuses, McpSession to) {
    if (progressToken != null || statuses) {
      follow(id, owner, progressToken, statuses, to::send, -1);
    }
  }

  /**
   * Follows a task for any sink of JSON-RPC messages; {@code sentPercent} is the progress the
   * caller has already reported (-1: none). Returns what takes a state: a caller that learns the
   * final state first hands it over, so the last progress goes out before what it sends next.
   */
  Consumer<TaskState> follow(
      String id,
      String owner,
      JsonNode progressToken,
      boolean statuses,
      Consumer<String> to,
      double sentPercent) {
    TaskWatch watch = new TaskWatch(progressToken, statuses, to, sentPercent);
    // progress comes from the updates themselves, each once and in order (a state read after an
    // update may already be two stages on, and the stage between would never be heard)
    watch.closeWith(
        follower.updates(
            id,
            0,
            TaskFollower.ownedBy(owner),
            false,
            stored -> stored.ifPresent(watch::onState),
            watch::onUpdate));
    return watch::onState;
  }

  /** Calls {@code listener} with the task's state after each of its updates until closed. */
  AutoCloseable watch(String id, String owner, Consumer<TaskState> listener) {
    return follower.afterEachUpdate(id, TaskFollower.ownedBy(owner), listener);
  }

  static int offset(JsonNode cursor) {
    if (cursor == null || cursor.isNull()) {
      return 0;
    }
    return PageToken.decode(cursor.asText())
        .orElseThrow(() -> McpError.invalidParams("Invalid cursor"));
  }

  /** What one followed task has told its client so far. */
  private static final class TaskWatch {
    private final JsonNode progressToken;
    private final boolean statuses;
    private final Consumer<String> to;
    private double lastPercent;
    private long lastSeq = -1;
    private String lastStatus = "working";
    private AutoCloseable subscription;
    private boolean over;
    private TaskState current;

    TaskWatch(JsonNode progressToken, boolean statuses, Consumer<String> to, double sentPercent) {
      this.progressToken = progressToken;
      this.statuses = statuses;
      this.to = to;
      this.lastPercent = sentPercent;
    }

    synchronized void closeWith(AutoCloseable sub) {
      if (over) {
        Subscriptions.closeQuietly(sub);
      } else {
        subscription = sub;
      }
    }

    synchronized void onState(TaskState s) {
      if (over || s.seq() < lastSeq) {
        return; // states are read on several threads: an older one may come after a newer one
      }
      current = s;
      lastSeq = s.seq();
      boolean done = s.status() != null && s.status().isFinal();
      progress(s.progressPercent(), s.currentActorName(), s.currentActorIdx(), done, s.status());
      if (statuses && !McpTaskViews.status(s.status()).equals(lastStatus)) {
        lastStatus = McpTaskViews.status(s.status());
        to.accept(notification("notifications/tasks/status", McpTaskViews.task(s)));
      }
      if (done) {
        end();
      }
    }

    /**
     * One update, each once and in order (on the feed's thread: the stream only queues): its
     * progress as it came, and the status of the state it leaves.
     */
    synchronized void onUpdate(TaskUpdate u) {
      if (over || u.seq() <= lastSeq) {
        return;
      }
      lastSeq = u.seq();
      boolean done = u.isFinal();
      progress(
          u.progressPercent() == null ? lastPercent : u.progressPercent(),
          u.actor(),
          u.currentActorIdx(),
          done,
          u.status());
      if (current == null) {
        // the task was not folded yet when it was read: it is new, and this is its first update
        current = TaskState.announced(u.id(), null, null, u.status(), u.message(), u.timestamp());
      }
      current = current.withUpdate(u);
      if (statuses && !McpTaskViews.status(current.status()).equals(lastStatus)) {
        lastStatus = McpTaskViews.status(current.status());
        to.accept(notification("notifications/tasks/status", McpTaskViews.task(current)));
      }
      if (done) {
        end();
      }
    }

    private void progress(
        Double percent, String actor, Integer idx, boolean done, Object ourStatus) {
      if (progressToken == null || over) {
        return;
      }
      double p = percent;
      if (done && ourStatus == TaskStatus.SUCCEEDED) {
        p = 100;
      }
      if (p <= lastPercent) {
        return; // progress must grow with each notification
      }
      lastPercent = p;
      String message = actor == null ? null : "actor " + actor + " (#" + idx + ")";
      to.accept(
          notification(
              "notifications/progress", ProgressParams.percent(progressToken, p, message)));
    }

    private void end() {
      over = true;
      if (subscription != null) {
        Subscriptions.closeQuietly(subscription);
      }
    }
  }

  /** A FLY event as {@code notifications/message}: level info, logger {@code taskmesh/fly}. */
  static String flyMessage(String taskId, JsonNode fly) {
    return notification("notifications/message", LogMessageParams.fly(taskId, fly));
  }

  static String notification(String method, Object params) {
    return Json.write(new JSONRPCNotification(McpSchema.JSONRPC_VERSION, method, params));
  }
}
