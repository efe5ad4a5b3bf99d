package io.taskmesh.gateway.launch;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskIds;
import io.taskmesh.schemas.Times;
import io.taskmesh.schemas.Topics;
import io.taskmesh.topology.TaskCommands;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Starts a task of a flow: appends the {@code created} event, then sends the envelope to the
 * entrypoint's queue. The event goes first so a running envelope always has a task; a send that
 * fails (no such actor topic, broker unreachable) fails the task at once with the reason; if the
 * process dies between the two, the task stays pending until its deadline backstop (if any).
 */
public final class TaskLauncher {
  private final TaskCommands commands;
  private final EnvelopeQueue dispatcher;
  private final String namespace;
  private final String meshUrl;
  private final String eventsTopic;

  /**
   * @param eventsTopic the task event log; named in each envelope ({@code x-svc-task-events}) so
   *     that our sidecars append progress to it inside their routing transaction instead of posting
   *     it to {@code meshUrl}; null leaves progress on HTTP
   */
  public TaskLauncher(
      TaskCommands commands,
      EnvelopeQueue dispatcher,
      String namespace,
      String meshUrl,
      String eventsTopic) {
    this.commands = commands;
    this.dispatcher = dispatcher;
    this.namespace = namespace;
    this.meshUrl = meshUrl;
    this.eventsTopic = eventsTopic;
  }

  /** Returns the new task id; the task is its own context. */
  public String start(FlowConfig flow, JsonNode input, String owner) {
    return start(flow, input, owner, null);
  }

  /**
   * Returns the new task id. {@code contextId} is the conversation the task belongs to (an A2A
   * client's {@code contextId}), stored in the created event; null makes the task its own context.
   */
  // the tracing resource is a scope: it ends the launch span when it closes
  @SuppressWarnings("try")
  public String start(FlowConfig flow, JsonNode input, String owner, String contextId) {
    String id = TaskIds.next();
    Instant now = Instant.now();
    String created = Times.iso(now);
    String deadline =
        flow.timeout() == null
            ? null
            : Times.iso(now.plusMillis(Math.round(flow.timeout() * 1000)));
    Route route = flow.startRoute();
    commands.append(
        TaskEvent.created(
            id,
            new TaskEvent.Created(
                flow.name(),
                route,
                input,
                null,
                contextId != null ? contextId : id,
                deadline,
                owner)));
    Map<String, Object> headers = new LinkedHashMap<>();
    if (meshUrl != null) {
      headers.put(Envelope.GATEWAY_URL_HEADER, meshUrl);
    }
    if (eventsTopic != null) {
      headers.put(Envelope.TASK_EVENTS_HEADER, eventsTopic);
    }
    EnvelopeStatus status = EnvelopeStatus.pending("gateway", 0, created, deadline);
    try (TaskTracing launch = TaskTracing.launch(id, flow.name(), headers)) {
      dispatcher.dispatch(namespace, new Envelope(id, null, route, status, input, headers));
    } catch (DispatchException e) {
      failUndispatched(id, route, e);
    }
    return id;
  }

  /**
   * The task exists (its created event is in the log) but no actor will ever see it: it fails now,
   * with the reason, instead of staying pending until its deadline (or forever without one). The
   * caller gets the id of a failed task. Only when the failure cannot be written either does the
   * dispatch error reach the caller.
   */
  private void failUndispatched(String id, Route route, DispatchException e) {
    LOG.warn("task {}: {}", id, e.getMessage());
    try {
      commands.append(
          TaskEvent.finished(
              id,
              FinalReport.failed(
                  id,
                  "dispatch failed: " + e.getMessage(),
                  "gateway",
                  Map.of("reason", DISPATCH_FAILED, "actor", route.curr()))));
    } catch (RuntimeException appendFailed) {
      e.addSuppressed(appendFailed);
      throw e;
    }
  }

  /** {@code metadata.reason} of a task that never reached its first actor. */
  static final String DISPATCH_FAILED = "DispatchFailed";

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TaskLauncher.class);

  /**
   * Resumes a paused task with new input: first the {@code resumed} event (paused -> running), so
   * the next actor's reports, which can only come after x-pause has the input, always fold after
   * it; then the resume record for x-pause. If the record cannot be written the task is put back to
   * paused (its envelope is still parked) and the error goes to the caller.
   */
  public void resume(String taskId, JsonNode input) {
    commands.append(TaskEvent.resumed(taskId, "new input"));
    try {
      dispatcher.resume(namespace, taskId, input);
    } catch (RuntimeException e) {
      commands.append(
          TaskEvent.paused(
              taskId,
              FinalReport.paused(taskId, Topics.PAUSE, Map.of("reason", "resume not delivered"))));
      throw e;
    }
  }
}
