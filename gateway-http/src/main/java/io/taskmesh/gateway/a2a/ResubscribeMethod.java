package io.taskmesh.gateway.a2a;

import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.a2a.model.StreamResult;
import io.taskmesh.schemas.TaskState;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tasks/resubscribe}: the Task as stored, then its stream from there; a task whose stream is
 * already over gets its closing events at once.
 */
final class ResubscribeMethod {
  private final OwnedTasks tasks;

  ResubscribeMethod(OwnedTasks tasks) {
    this.tasks = tasks;
  }

  /**
   * A2A 1.0 {@code SubscribeToTask}: as resubscribe, but a task in a terminal state is refused
   * (spec 9.4.6).
   */
  void subscribe(A2aCall call) throws Exception {
    String id = A2aMessages.requiredString(call.params(), "id");
    A2aState state = A2aState.of(tasks.visible(id, call.principal()).status());
    if (state.isTerminal()) {
      throw new A2aException(
          A2aException.UNSUPPORTED_OPERATION,
          "Task "
              + id
              + " is in a terminal state ("
              + state
              + "): there is nothing to subscribe to");
    }
    stream(call, true);
  }

  void resubscribe(A2aCall call) throws Exception {
    stream(call, false);
  }

  /**
   * @param untilTerminal 1.0: the stream goes on through input-required and auth-required and ends
   *     at a terminal state only; 0.3: it ends at either
   */
  private void stream(A2aCall call, boolean untilTerminal) throws Exception {
    String id = A2aMessages.requiredString(call.params(), "id");
    TaskState s = tasks.visible(id, call.principal());
    A2aState state = A2aState.of(s.status());
    String contextId = A2aTasks.contextId(s);
    List<StreamResult> first = new ArrayList<>();
    first.add(A2aTasks.task(s, 0));
    StreamMapper mapper;
    if (untilTerminal ? state.isTerminal() : state.endsStream()) {
      mapper = new StreamMapper(id, contextId, s.seq() - 1, null);
      first.addAll(mapper.onState(s)); // already over: the closing events, then the end
    } else {
      mapper = new StreamMapper(id, contextId, s.seq(), state, untilTerminal);
    }
    call.stream(id, first, mapper);
  }
}
