package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.a2a.model.A2aArtifact;
import io.taskmesh.gateway.a2a.model.A2aPart;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.a2a.model.ArtifactUpdateEvent;
import io.taskmesh.gateway.a2a.model.ShapedResult;
import io.taskmesh.gateway.a2a.model.StreamResult;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.List;

/**
 * The A2A events of one stream of one task (spec, "A2A mapping"), as a pure state machine fed with
 * task updates and FLY events:
 *
 * <ul>
 *   <li>an update whose A2A state differs from the last one sent becomes a status-update ({@code
 *       final: false}); progress within the same state is not forwarded;
 *   <li>a FLY event becomes a chunk of the artifact {@code fly-stream}: the first with {@code
 *       append: false}, the next ones {@code append: true}, all {@code lastChunk: false};
 *   <li>a terminal state (completed, failed, canceled) closes {@code fly-stream} when tokens were
 *       sent (an empty last chunk), sends a completed task's result as the artifact {@code result}
 *       (a data part and a text part), then the final status-update ({@code final: true}) whose
 *       message is the result's text, or the error with the failing actor and traceback;
 *   <li>input-required and auth-required end the stream with a final status-update only (the task
 *       is not over);
 *   <li>a flow result or FLY event with an {@code a2a} member names its own artifacts ({@link
 *       ShapedResult}): a FLY event {@code {"a2a": {"artifact": {...}, "append", "lastChunk"}}} is
 *       a chunk of that artifact; a completed result's {@code a2a.artifacts} are sent whole before
 *       the final status-update, instead of the {@code fly-stream} result chunk;
 *   <li>after the final event nothing more is emitted; updates at or below the last seen sequence
 *       number are duplicates and are ignored.
 * </ul>
 */
final class StreamMapper {
  private final String taskId;
  private final String contextId;
  private long lastSeq;
  private A2aState lastState;
  private boolean flySent;
  private boolean done;
  private final boolean untilTerminal;

  StreamMapper(String taskId, String contextId, long lastSeq, A2aState lastState) {
    this(taskId, contextId, lastSeq, lastState, false);
  }

  /**
   * @param untilTerminal whether input-required and auth-required are ordinary state changes and
   *     only a terminal state ends the stream (A2A 1.0 {@code SubscribeToTask}, spec 3.1.6)
   */
  StreamMapper(
      String taskId, String contextId, long lastSeq, A2aState lastState, boolean untilTerminal) {
    this.untilTerminal = untilTerminal;
    this.taskId = taskId;
    this.contextId = contextId;
    this.lastSeq = lastSeq;
    this.lastState = lastState;
  }

  public synchronized List<StreamResult> onUpdate(TaskUpdate u) {
    if (done || u.seq() <= lastSeq) {
      return List.of();
    }
    lastSeq = u.seq();
    A2aState state = A2aState.of(u.status());
    if (state.isTerminal()) {
      done = true;
      ShapedResult shaped =
          state == A2aState.COMPLETED ? ShapedResult.of(u.result()) : ShapedResult.of(null);
      if (!shaped.isEmpty()) {
        // the result names its own artifacts: each whole, after the FLY chunks (closed if any)
        List<StreamResult> out = new ArrayList<>();
        if (flySent) {
          out.add(A2aTasks.artifactEvent(taskId, contextId, new A2aPart.Text(""), true, true));
        }
        shaped
            .namedArtifacts()
            .forEach(a -> out.add(new ArtifactUpdateEvent(taskId, contextId, a, false, true)));
        out.add(A2aTasks.statusEvent(taskId, contextId, u, true));
        return out;
      }
      // the tokens' artifact ends; the result is an artifact of its own, then the final status
      List<StreamResult> out = new ArrayList<>();
      if (flySent) {
        out.add(A2aTasks.artifactEvent(taskId, contextId, new A2aPart.Text(""), true, true));
      }
      if (state == A2aState.COMPLETED && u.result() != null && !u.result().isNull()) {
        out.add(
            new ArtifactUpdateEvent(
                taskId, contextId, A2aTasks.resultArtifact(u.result()), false, true));
      }
      out.add(A2aTasks.statusEvent(taskId, contextId, u, true));
      return out;
    }
    if (state.isInterrupted() && !untilTerminal) {
      done = true;
      return List.of(A2aTasks.statusEvent(taskId, contextId, u, true));
    }
    if (state == lastState) {
      return List.of(); // progress: not forwarded
    }
    lastState = state;
    return List.of(A2aTasks.statusEvent(taskId, contextId, u, false));
  }

  public synchronized List<StreamResult> onFly(JsonNode fly) {
    if (done || fly == null || !fly.isObject()) {
      return List.of();
    }
    JsonNode chunk = fly.path(ShapedResult.KEY).get("artifact");
    A2aArtifact own = ShapedResult.artifact(chunk, "fly-artifact");
    if (own != null) {
      // a FLY event that names its artifact: a chunk of that artifact, as the event says
      JsonNode a2a = fly.get(ShapedResult.KEY);
      return List.of(
          new ArtifactUpdateEvent(
              taskId,
              contextId,
              own,
              a2a.path("append").asBoolean(false),
              a2a.path("lastChunk").asBoolean(false)));
    }
    StreamResult event =
        A2aTasks.artifactEvent(taskId, contextId, A2aTasks.flyPart(fly), flySent, false);
    flySent = true;
    return List.of(event);
  }

  /** Catches up with a stored state (read after subscribing): as if its last update arrived now. */
  List<StreamResult> onState(TaskState s) {
    return onUpdate(asUpdate(s));
  }

  public synchronized boolean done() {
    return done;
  }

  static TaskUpdate asUpdate(TaskState s) {
    return TaskUpdate.of(s.id(), s.seq(), s.status(), s.message(), s.updatedAt())
        .withProgress(s.progressPercent())
        .withActor(s.currentActorName())
        .withResult(s.result())
        .withError(s.error())
        .withErrorDetails(s.errorDetails())
        .withQuestion(s.question());
  }
}
