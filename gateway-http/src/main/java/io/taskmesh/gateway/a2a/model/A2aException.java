package io.taskmesh.gateway.a2a.model;

/** An A2A error to answer, by its JSON-RPC code: the A2A 0.3 / 1.0 and JSON-RPC 2.0 codes. */
public final class A2aException extends RuntimeException {
  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;
  public static final int TASK_NOT_FOUND = -32001;
  public static final int TASK_NOT_CANCELABLE = -32002;
  public static final int PUSH_NOT_SUPPORTED = -32003;
  public static final int UNSUPPORTED_OPERATION = -32004;
  public static final int CONTENT_TYPE_NOT_SUPPORTED = -32005;

  /** A2A 1.0 codes; -32007 is also 0.3's AuthenticatedExtendedCardNotConfiguredError. */
  public static final int INVALID_AGENT_RESPONSE = -32006;

  public static final int EXTENDED_CARD_NOT_CONFIGURED = -32007;
  public static final int EXTENSION_SUPPORT_REQUIRED = -32008;
  public static final int VERSION_NOT_SUPPORTED = -32009;

  private final int code;

  public A2aException(int code, String message) {
    super(message);
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static A2aException params(String message) {
    return new A2aException(INVALID_PARAMS, message);
  }

  /** Unknown and foreign tasks get the same answer: existence is never revealed. */
  public static A2aException taskNotFound(String id) {
    return new A2aException(TASK_NOT_FOUND, "Task not found: " + id);
  }
}
