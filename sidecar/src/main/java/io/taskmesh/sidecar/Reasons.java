package io.taskmesh.sidecar;

/**
 * Values of {@code status.reason} on failed envelopes ("Timeout" is the spec's; the others are
 * ours).
 */
public final class Reasons {
  public static final String TIMEOUT = "Timeout";
  public static final String INVALID_ENVELOPE = "InvalidEnvelope";
  public static final String WRONG_ACTOR = "WrongActor";
  public static final String INVALID_ROUTE = "InvalidRoute";
  public static final String MSG_PARSING_ERROR = "MsgParsingError";
  public static final String PROCESSING_ERROR = "ProcessingError";
  public static final String EMPTY_RESPONSE = "EmptyResponse";
  public static final String PROTOCOL_ERROR = "RuntimeProtocolError";
  public static final String RUNTIME_CRASHED = "RuntimeCrashed";
  public static final String POISON = "Poison";

  /** The handler's result (or failure report) is larger than one queue record may be. */
  public static final String RESULT_TOO_LARGE = "ResultTooLarge";

  /** The gateway did not take the fan-out children as tasks: none of them was routed. */
  public static final String CHILD_REGISTRATION_FAILED = "ChildRegistrationFailed";

  private Reasons() {}
}
