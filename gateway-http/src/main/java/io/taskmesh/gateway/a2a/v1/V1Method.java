package io.taskmesh.gateway.a2a.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.A2aRoutes.Operation;
import io.taskmesh.gateway.a2a.card.AgentCard;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One A2A 1.0 method: the shared operation it runs, how its 1.0 params become the operation's
 * (0.3-shaped) params, how a one-shot result becomes its 1.0 answer, and whether it streams (stream
 * events always become {@code StreamResponse}s).
 */
record V1Method(
    String name,
    Operation operation,
    UnaryOperator<ObjectNode> in,
    UnaryOperator<JsonNode> out,
    boolean streaming) {

  static final V1Method SEND =
      new V1Method(
          "SendMessage", Operation.SEND, V1Objects::sendParams, V1Objects::sendResponse, false);
  static final V1Method STREAM =
      new V1Method(
          "SendStreamingMessage",
          Operation.SEND,
          V1Objects::sendParams,
          V1Objects::streamResponse,
          true);
  static final V1Method GET =
      new V1Method("GetTask", Operation.GET, p -> p, V1Objects::task, false);
  static final V1Method LIST =
      new V1Method("ListTasks", Operation.LIST, V1Objects::listParams, V1Objects::taskPage, false);
  static final V1Method CANCEL =
      new V1Method("CancelTask", Operation.CANCEL, p -> p, V1Objects::task, false);
  static final V1Method SUBSCRIBE =
      new V1Method("SubscribeToTask", Operation.SUBSCRIBE, p -> p, V1Objects::streamResponse, true);
  static final V1Method PUSH_CREATE =
      new V1Method(
          "CreateTaskPushNotificationConfig",
          Operation.PUSH_SET,
          V1Objects::pushConfigCreate,
          V1Objects::pushConfig,
          false);
  static final V1Method PUSH_GET =
      new V1Method(
          "GetTaskPushNotificationConfig",
          Operation.PUSH_GET,
          V1Objects::pushConfigRef,
          V1Objects::pushConfig,
          false);
  static final V1Method PUSH_LIST =
      new V1Method(
          "ListTaskPushNotificationConfigs",
          Operation.PUSH_LIST,
          V1Objects::pushConfigTask,
          V1Objects::pushConfigList,
          false);
  static final V1Method PUSH_DELETE =
      new V1Method(
          "DeleteTaskPushNotificationConfig",
          Operation.PUSH_DELETE,
          V1Objects::pushConfigRef,
          V1Objects::empty,
          false);
  static final V1Method EXTENDED_CARD =
      new V1Method("GetExtendedAgentCard", Operation.EXTENDED_CARD, p -> p, AgentCard::v1, false);

  /** The JSON-RPC methods by their 1.0 names (spec 5.3). */
  static final Map<String, V1Method> BY_NAME =
      Map.ofEntries(
          entry(SEND),
          entry(STREAM),
          entry(GET),
          entry(LIST),
          entry(CANCEL),
          entry(SUBSCRIBE),
          entry(PUSH_CREATE),
          entry(PUSH_GET),
          entry(PUSH_LIST),
          entry(PUSH_DELETE),
          entry(EXTENDED_CARD));

  private static Map.Entry<String, V1Method> entry(V1Method m) {
    return Map.entry(m.name(), m);
  }
}
