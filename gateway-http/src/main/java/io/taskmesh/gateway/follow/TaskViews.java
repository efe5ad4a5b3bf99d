package io.taskmesh.gateway.follow;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two read shapes of a task: {@code GET /tasks/{id}} and the mesh form {@code GET /mesh/{id}}.
 */
public final class TaskViews {
  private TaskViews() {}

  public static Map<String, Object> task(TaskState s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("status", s.status().wire());
    m.put("message", s.message());
    if (s.result() != null) {
      m.put("result", s.result());
    }
    if (s.error() != null) {
      m.put("error", s.error());
    }
    if (s.errorDetails() != null) {
      m.put("error_details", s.errorDetails());
    }
    if (s.question() != null) {
      m.put("question", s.question());
    }
    if (s.inputRequests() != null) {
      m.put("input_requests", s.inputRequests());
    }
    m.put("progress_percent", s.progressPercent());
    m.put("current_actor_idx", s.currentActorIdx());
    m.put("current_actor_name", s.currentActorName());
    m.put("actors_completed", s.actorsCompleted());
    m.put("total_actors", s.totalActors());
    m.put("created_at", s.createdAt());
    m.put("updated_at", s.updatedAt());
    return m;
  }

  /**
   * Mesh form with {@code children}: the ids of the task's fan-out children (tasks whose {@code
   * parent_id} is this id), oldest first.
   */
  public static ObjectNode mesh(TaskState s, List<String> children) {
    ObjectNode m = mesh(s);
    ArrayNode ids = m.putArray("children");
    children.forEach(ids::add);
    return m;
  }

  /** Mesh form: {@code parent_id} and {@code result} are always present, null when unset. */
  public static ObjectNode mesh(TaskState s) {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("id", s.id());
    m.put("parent_id", s.parentId());
    m.put("context_id", s.contextId());
    m.put("status", s.status().wire());
    m.set("route", Json.tree(s.route()));
    m.set("payload", s.payload());
    m.set("result", s.result() == null ? NullNode.getInstance() : s.result());
    m.put("progress_percent", s.progressPercent());
    m.put("current_actor_name", s.currentActorName());
    m.put("message", s.message());
    m.put("actors_completed", s.actorsCompleted());
    m.put("total_actors", s.totalActors());
    m.put("created_at", s.createdAt());
    m.put("updated_at", s.updatedAt());
    return m;
  }
}
