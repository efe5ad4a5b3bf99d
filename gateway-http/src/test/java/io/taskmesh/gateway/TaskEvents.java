package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import java.util.List;

/** The events the follow tests fold: a task of flow {@code f} created, and finished. */
final class TaskEvents {
  private TaskEvents() {}

  static TaskEvent created(String id, String owner) {
    return TaskEvent.created(
        id,
        new TaskEvent.Created(
            "f",
            Route.start("a", List.of()),
            JsonNodeFactory.instance.objectNode(),
            null,
            id,
            null,
            owner));
  }

  static TaskEvent finished(String id) {
    return TaskEvent.finished(
        id,
        FinalReport.succeeded(
            id, JsonNodeFactory.instance.objectNode().put("ok", true), "x-sink", null));
  }
}
