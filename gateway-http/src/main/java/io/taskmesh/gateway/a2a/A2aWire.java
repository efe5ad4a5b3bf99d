package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.push.PushNotifier;
import io.taskmesh.schemas.Json;

/**
 * How one A2A binding writes its answers: the method classes produce 0.3-shaped results (typed
 * records, as JSON trees here) and errors, and the wire puts them on the binding's form (the 0.3
 * JSON-RPC envelope, or A2A 1.0 JSON-RPC / HTTP+JSON objects).
 */
public interface A2aWire {

  /** Answers one result (null: the method answers nothing). */
  void reply(Context ctx, JsonNode requestId, JsonNode result);

  void error(Context ctx, JsonNode requestId, A2aException e);

  /**
   * The data of one SSE event carrying {@code result} (a Task, status-update or artifact-update).
   */
  String event(JsonNode requestId, JsonNode result);

  /** The data of an SSE event carrying an error. */
  String errorEvent(JsonNode requestId, A2aException e);

  /**
   * Whether an error of a streaming call is sent as a one-event stream (else as a plain answer).
   */
  boolean errorsAsEvents();

  /** The payload form of push notifications for configs registered over this binding. */
  default String pushForm() {
    return PushNotifier.FORM_03;
  }

  /** A2A 0.3 JSON-RPC: every answer and every event is a JSON-RPC response. */
  A2aWire JSON_RPC_03 =
      new A2aWire() {
        @Override
        public void reply(Context ctx, JsonNode requestId, JsonNode result) {
          A2aCall.json(ctx, JsonRpc.result(requestId, result));
        }

        @Override
        public void error(Context ctx, JsonNode requestId, A2aException e) {
          A2aCall.json(ctx, JsonRpc.error(requestId, e.code(), e.getMessage()));
        }

        @Override
        public String event(JsonNode requestId, JsonNode result) {
          return Json.write(JsonRpc.result(requestId, result));
        }

        @Override
        public String errorEvent(JsonNode requestId, A2aException e) {
          return Json.write(JsonRpc.error(requestId, e.code(), e.getMessage()));
        }

        @Override
        public boolean errorsAsEvents() {
          return true;
        }
      };
}
