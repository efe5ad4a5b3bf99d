package io.taskmesh.gateway.a2a;

import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskCommands;
import java.util.concurrent.CompletableFuture;

/**
 * {@code tasks/cancel}: appends the cancel and answers the canceled Task once it is folded; a task
 * that reached another end first (or was already over) is TaskNotCancelable.
 */
final class CancelMethod {
  static final long CANCEL_WAIT_MS = 10_000;

  private final OwnedTasks tasks;
  private final TaskCommands commands;

  CancelMethod(OwnedTasks tasks, TaskCommands commands) {
    this.tasks = tasks;
    this.commands = commands;
  }

  void cancel(A2aCall call) {
    String id = A2aMessages.requiredString(call.params(), "id");
    A2aState before = A2aState.of(tasks.visible(id, call.principal()).status());
    if (before.isTerminal()) {
      throw new A2aException(
          A2aException.TASK_NOT_CANCELABLE, "Task cannot be canceled: it is " + before);
    }
    CompletableFuture<TaskState> ended = tasks.until(id, TaskState::isFinal, CANCEL_WAIT_MS);
    commands.append(TaskEvent.canceled(id, "canceled by the A2A client"));
    call.replyWhen(
        ended.thenAccept(
            t -> {
              A2aState state = A2aState.of(t.status());
              if (state.isTerminal() && state != A2aState.CANCELED) {
                call.replyError(
                    A2aException.TASK_NOT_CANCELABLE,
                    "Task cannot be canceled: it became " + state + " first");
              } else {
                call.reply(A2aTasks.task(t, null));
              }
            }));
  }
}
