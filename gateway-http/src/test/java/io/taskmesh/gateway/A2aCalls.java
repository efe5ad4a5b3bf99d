package io.taskmesh.gateway;

/** JSON-RPC request bodies for {@code POST /a2a/}. */
final class A2aCalls {
  private A2aCalls() {}

  static String call(String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":\""
        + method
        + "\",\"method\":\""
        + method
        + "\",\"params\":"
        + params
        + "}";
  }

  /**
   * {@code message/send} of one text part to the {@code echo} skill; {@code blocking} false answers
   * at once with the new task.
   */
  static String send(String messageId, String text, boolean blocking) {
    return call("message/send", sendParams(messageId, text, blocking));
  }

  static String sendParams(String messageId, String text, boolean blocking) {
    return "{\"message\":{\"role\":\"user\",\"messageId\":\""
        + messageId
        + "\",\"parts\":"
        + "[{\"kind\":\"text\",\"text\":\""
        + text
        + "\"}]},\"configuration\":{\"blocking\":"
        + blocking
        + "},"
        + "\"metadata\":{\"skill\":\"echo\"}}";
  }
}
