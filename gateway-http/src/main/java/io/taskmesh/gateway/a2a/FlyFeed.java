package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Consumer;

/** Live FLY events of one task, pushed to in-process subscribers. */
@FunctionalInterface
public interface FlyFeed {
  /** Subscribes; the listener must not block. Close the returned handle to unsubscribe. */
  AutoCloseable subscribe(String taskId, Consumer<JsonNode> listener);
}
