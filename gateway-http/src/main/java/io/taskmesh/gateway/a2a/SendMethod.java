package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessage;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTask;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.a2a.model.ShapedResult;
import io.taskmesh.gateway.a2a.push.PushNotifier;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Times;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@code message/send} and {@code message/stream}: a message without a task id starts a task of the
 * chosen skill in the client's {@code contextId} (kept; none: the task is its own context); one
 * with the id of the caller's input-required task resumes it, however often it asks.
 *
 * <p>The answer streams SSE until the task is completed, failed, canceled, input-required or
 * auth-required when the call streams; otherwise it is one JSON-RPC response with the Task in that
 * state, or at once when {@code configuration.blocking} is false.
 */
final class SendMethod {
  /**
   * How long a non-blocking answer that resumes a task waits for the task's view to show the
   * resume; past it, it answers anyway (the view is behind, e.g. rebalancing).
   */
  private static final Duration RESUME_SEEN_WITHIN = Duration.ofSeconds(5);

  /** How long a non-blocking message/send waits for its task to be folded before it answers. */
  static final long VISIBLE_WAIT_MS = 5_000;

  private final Supplier<Map<String, FlowConfig>> skills;
  private final TaskStarter starter;
  private final PushNotifier push;
  private final OwnedTasks tasks;

  SendMethod(
      Supplier<Map<String, FlowConfig>> skills,
      TaskStarter starter,
      PushNotifier push,
      OwnedTasks tasks) {
    this.skills = skills;
    this.starter = starter;
    this.push = push;
    this.tasks = tasks;
  }

  void send(A2aCall call) throws Exception {
    A2aMessages.Send send = A2aMessages.parseSend(call.params());
    if (send.taskId() != null) {
      resume(call, send, tasks.visible(send.taskId(), call.principal()));
      return;
    }
    TaskState waiting = continued(send, call.principal());
    if (waiting != null) {
      resume(call, send, waiting);
      return;
    }
    FlowConfig flow = A2aMessages.chooseSkill(send.skill(), skills.get());
    if (!isNative(flow)) {
      send.refuseFiles();
    }
    ObjectNode pushConfig =
        send.pushConfig() == null ? null : push.validate(send.pushConfig(), null);
    String id = starter.start(flow, payload(flow, send, null), call.principal(), send.contextId());
    String contextId = send.contextId() != null ? send.contextId() : id;
    if (pushConfig != null) {
      push.set(pending(id, contextId, call.principal()), pushConfig, call.pushForm());
    }
    if (call.streaming()) {
      call.stream(
          id,
          List.of(A2aTasks.submitted(id, contextId, Times.now())),
          new StreamMapper(id, contextId, 0, A2aState.SUBMITTED));
      return;
    }
    Integer historyLength = send.historyLength();
    if (Boolean.FALSE.equals(send.blocking())) {
      // read-your-writes: answer once the created event is folded, so that a tasks/get or
      // tasks/cancel sent right after this answer finds the task (after VISIBLE_WAIT_MS without
      // it, the answer is the submitted task as launched)
      CompletableFuture<TaskState> folded = tasks.until(id, s -> true, VISIBLE_WAIT_MS);
      call.replyWhen(
          folded.handle(
              (s, notYet) -> {
                call.reply(
                    s != null
                        ? A2aTasks.task(s, historyLength)
                        : A2aTasks.submitted(id, contextId, Times.now()));
                return null;
              }));
      return;
    }
    CompletableFuture<TaskState> ended =
        tasks.until(id, s -> A2aState.of(s.status()).endsStream(), 0);
    call.replyWhen(ended.thenAccept(s -> call.reply(answer(s, historyLength))));
  }

  /**
   * The task a message without a task id continues: in its {@code contextId}, the one task of the
   * caller that waits for input, when the message names no skill or that task's skill (agent
   * clients answer a question by context alone). None waiting: null, a new task starts. Several: an
   * error naming them, since the answer could belong to any.
   */
  private TaskState continued(A2aMessages.Send send, String principal) {
    if (send.contextId() == null) {
      return null;
    }
    List<TaskState> waiting =
        tasks.waitingIn(send.contextId(), principal).stream()
            .filter(t -> send.skill() == null || send.skill().equals(t.flow()))
            .toList();
    if (waiting.size() > 1) {
      throw A2aException.params(
          "Invalid params: "
              + waiting.size()
              + " tasks wait for input in context \""
              + send.contextId()
              + "\" ("
              + String.join(", ", waiting.stream().map(TaskState::id).toList())
              + "); name the one this message answers in 'message.taskId'");
    }
    return waiting.isEmpty() ? null : waiting.get(0);
  }

  /**
   * A settled task, or the direct message its result asks to answer with ({@link ShapedResult}).
   */
  private static Object answer(TaskState s, Integer historyLength) {
    A2aMessage reply = A2aTasks.reply(s);
    return reply != null ? reply : A2aTasks.task(s, historyLength);
  }

  /**
   * The payload of a message to {@code flow}: the parts' payload, plus, for a flow that asks for it
   * ({@code a2a: {native: true}}), the message's own fields as {@code payload.a2a}: {@code
   * messageId}, {@code contextId} and {@code taskId} when known, {@code metadata} when sent. A2A
   * agents key their behaviour on them (the TCK names the scenario in the messageId).
   */
  private static ObjectNode payload(FlowConfig flow, A2aMessages.Send send, TaskState existing) {
    if (!isNative(flow)) {
      return send.payload();
    }
    ObjectNode payload = send.payload().deepCopy();
    ObjectNode message = payload.putObject(ShapedResult.KEY);
    message.put("messageId", send.message().path("messageId").asText());
    String contextId =
        send.contextId() != null
            ? send.contextId()
            : existing != null ? A2aTasks.contextId(existing) : null;
    if (contextId != null) {
      message.put("contextId", contextId);
    }
    if (existing != null) {
      message.put("taskId", existing.id());
    }
    if (!send.files().isEmpty()) {
      send.files().forEach(message.putArray("files")::add);
    }
    JsonNode metadata = send.message().get("metadata");
    if (metadata != null && metadata.isObject()) {
      message.set("metadata", metadata);
    }
    return payload;
  }

  /**
   * {@code message/send} with the id of the caller's task: an input-required (paused) task resumes
   * with the message as its new input (the payload rule of a new task; x-pause sets it as {@code
   * payload.input} of the parked envelope) and the answer follows it like a new send from there:
   * SSE from {@code working} on, or one JSON answer (at once when not blocking, else at the next
   * terminal or interrupted state). Any other state: -32004.
   */
  private void resume(A2aCall call, A2aMessages.Send send, TaskState existing) throws Exception {
    A2aState state = A2aState.of(existing.status());
    if (state != A2aState.INPUT_REQUIRED) {
      throw new A2aException(
          A2aException.UNSUPPORTED_OPERATION,
          state.isTerminal()
              ? "Task " + send.taskId() + " is in a terminal state (" + state + ")"
              : "Task " + send.taskId() + " does not take further messages while " + state);
    }
    String id = existing.id();
    String contextId = A2aTasks.contextId(existing);
    if (send.contextId() != null && !send.contextId().equals(contextId)) {
      throw A2aException.params(
          "Invalid params: 'message.contextId' \""
              + send.contextId()
              + "\" is not the context of task "
              + id
              + " (\""
              + contextId
              + "\")");
    }
    FlowConfig flow = skills.get().get(existing.flow());
    if (!isNative(flow)) {
      send.refuseFiles();
    }
    starter.resume(id, payload(flow, send, existing));
    A2aTask working =
        A2aTasks.task(existing, send.historyLength())
            .withStatus(
                A2aTasks.status(
                    id,
                    contextId,
                    TaskStatus.RUNNING,
                    "Task resumed: new input",
                    Times.now(),
                    existing.seq() + 1));
    if (call.streaming()) {
      // updates after the pause only: the resumed one (seq + 1) is what `working` already says
      call.stream(
          id,
          List.of(working),
          new StreamMapper(id, contextId, existing.seq() + 1, A2aState.WORKING));
      return;
    }
    long pausedAt = existing.seq();
    if (Boolean.FALSE.equals(send.blocking())) {
      // read your writes: a tasks/get after this answer must not show the pause it ended, or a
      // client that waits for input-required answers the old question again and is refused
      call.replyWhen(
          tasks
              .until(id, s -> s.seq() > pausedAt, RESUME_SEEN_WITHIN.toMillis())
              .thenAccept(s -> call.reply(working)));
      return;
    }
    CompletableFuture<TaskState> ended =
        tasks.until(id, s -> s.seq() > pausedAt + 1 && A2aState.of(s.status()).endsStream(), 0);
    call.replyWhen(ended.thenAccept(s -> call.reply(answer(s, send.historyLength()))));
  }

  /** Whether the flow takes the A2A message's own fields ({@code a2a: {native: true}}). */
  private static boolean isNative(FlowConfig flow) {
    JsonNode a2a = flow == null ? null : flow.a2a();
    return a2a != null && a2a.isObject() && a2a.path("native").asBoolean(false);
  }

  /** A task just created, before its created event is folded (for push bookkeeping). */
  private static TaskState pending(String id, String contextId, String owner) {
    return TaskState.announced(
        id, contextId, owner, TaskStatus.PENDING, "Task created", Times.now());
  }
}
