package io.taskmesh.gateway;

import io.taskmesh.schemas.TaskState;
import java.util.LinkedHashMap;
import java.util.Map;

/** The two read shapes of a task: {@code GET /tasks/{id}} and the mesh form {@code GET /mesh/{id}}. */
final class TaskViews {
  private TaskViews() {}

  static Map<String, Object> task(TaskState s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("status", s.status());
    m.put("message", s.message());
    if (s.result() != null) {
      m.put("result", s.result());
    }
    if (s.error() != null) {
      m.put("error", s.error());
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

  static Map<String, Object> mesh(TaskState s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("parent_id", s.parentId());
    m.put("context_id", s.contextId());
    m.put("status", s.status());
    m.put("route", s.route());
    m.put("payload", s.payload());
    m.put("result", s.result());
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
