package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.a2a.model.A2aTask;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.TaskQueries;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of a notification: the task as of the update, read from the task store (so it runs on
 * the delivery executor, never on the feed thread), in the payload form of the protocol its config
 * was registered with.
 */
final class NotificationBodies {
  private static final Logger LOG = LoggerFactory.getLogger(NotificationBodies.class);

  private final TaskQueries queries;
  private final Map<String, UnaryOperator<JsonNode>> forms =
      new ConcurrentHashMap<>(Map.of(PushNotifier.FORM_03, UnaryOperator.identity()));

  NotificationBodies(TaskQueries queries) {
    this.queries = queries;
  }

  /** Another binding's payload: {@code form} names it, {@code payload} maps the 0.3 Task to it. */
  void addForm(String form, UnaryOperator<JsonNode> payload) {
    forms.put(form, payload);
  }

  /** The A2A 0.3 Task as of {@code u}; the update alone when the store cannot say more. */
  JsonNode task(TaskUpdate u) {
    return Json.tree(taskAsOf(u));
  }

  /** {@code task} (from {@link #task}) in {@code form}; an unknown form gets the 0.3 Task. */
  JsonNode inForm(String form, JsonNode task) {
    return forms.getOrDefault(form, UnaryOperator.identity()).apply(task);
  }

  private A2aTask taskAsOf(TaskUpdate u) {
    try {
      Optional<TaskState> s = queries.get(u.id());
      if (s.isPresent() && s.get().seq() == u.seq()) {
        return A2aTasks.task(s.get(), 0);
      }
      if (s.isPresent() && s.get().seq() > u.seq()) {
        // the task moved on before this push went out: the Task as of this update
        return A2aTasks.task(s.get(), 0)
            .withoutArtifacts()
            .withStatus(A2aTasks.status(u.id(), A2aTasks.contextId(s.get()), u));
      }
    } catch (RuntimeException e) {
      LOG.debug("push: task {} not readable, sending the update only: {}", u.id(), e.toString());
    }
    return A2aTask.bare(u.id(), u.id(), A2aTasks.status(u.id(), u.id(), u));
  }
}
