package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.push.PushNotifier;

/**
 * {@code tasks/pushNotificationConfig/set|get|list|delete} (and their {@code pushNotification/*}
 * names) on the caller's tasks; the configs themselves are {@link PushNotifier}'s.
 */
final class PushConfigMethods {
  /** A config with the task it belongs to ({@code TaskPushNotificationConfig}). */
  record TaskPushConfig(String taskId, @JsonProperty("pushNotificationConfig") ObjectNode config) {}

  private final OwnedTasks tasks;
  private final PushNotifier push;

  PushConfigMethods(OwnedTasks tasks, PushNotifier push) {
    this.tasks = tasks;
    this.push = push;
  }

  void set(A2aCall call) {
    ObjectNode params = call.params();
    String taskId = A2aMessages.requiredString(params, "taskId");
    ObjectNode stored =
        push.set(
            tasks.visible(taskId, call.principal()),
            push.validate(params.get("pushNotificationConfig"), taskId),
            call.pushForm());
    call.reply(new TaskPushConfig(taskId, stored));
  }

  void get(A2aCall call) {
    ObjectNode params = call.params();
    String taskId = ownTaskId(call);
    String configId =
        A2aMessages.optionalString(params, "pushNotificationConfigId", "pushNotificationConfigId");
    call.reply(
        push.get(taskId, configId)
            .map(c -> new TaskPushConfig(taskId, c))
            .orElseThrow(
                () ->
                    A2aException.params(
                        "Invalid params: no push notification config"
                            + (configId == null ? "" : " '" + configId + "'")
                            + " for task "
                            + taskId)));
  }

  void list(A2aCall call) {
    String taskId = ownTaskId(call);
    call.reply(push.list(taskId).stream().map(c -> new TaskPushConfig(taskId, c)).toList());
  }

  void delete(A2aCall call) {
    String taskId = ownTaskId(call);
    String configId = A2aMessages.requiredString(call.params(), "pushNotificationConfigId");
    // idempotent (A2A 1.0, 3.1.10): deleting a config that is already gone has the same effect
    push.delete(taskId, configId);
    call.reply(null);
  }

  /**
   * The task of a get, list or delete ({@code id}, or {@code taskId}), checked to be the caller's.
   */
  private String ownTaskId(A2aCall call) {
    ObjectNode params = call.params();
    String taskId =
        params.has("id") || !params.has("taskId")
            ? A2aMessages.requiredString(params, "id")
            : A2aMessages.requiredString(params, "taskId");
    tasks.visible(taskId, call.principal());
    return taskId;
  }
}
