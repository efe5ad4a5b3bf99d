package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.launch.DispatchException;
import io.taskmesh.gateway.launch.TaskLauncher;
import io.taskmesh.schemas.FlowConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher as the A2A edge's {@link TaskStarter}: a queue that refuses the work is answered as
 * InternalError "Task log unavailable", as a task log failure is.
 */
public final class A2aTaskStarter implements TaskStarter {
  private static final Logger LOG = LoggerFactory.getLogger(A2aTaskStarter.class);

  private final TaskLauncher launcher;

  public A2aTaskStarter(TaskLauncher launcher) {
    this.launcher = launcher;
  }

  @Override
  public String start(FlowConfig flow, JsonNode payload, String owner, String contextId) {
    try {
      return launcher.start(flow, payload, owner, contextId);
    } catch (DispatchException e) {
      throw unavailable(e);
    }
  }

  @Override
  public void resume(String taskId, JsonNode input) {
    try {
      launcher.resume(taskId, input);
    } catch (DispatchException e) {
      throw unavailable(e);
    }
  }

  private static A2aException unavailable(DispatchException e) {
    LOG.error("A2A: dispatch failed: {}", e.getMessage());
    return new A2aException(A2aException.INTERNAL_ERROR, "Task log unavailable");
  }
}
