package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code status} of an envelope (second spec). Timestamps are ISO 8601 UTC strings. */
public record EnvelopeStatus(
    @JsonProperty("phase") EnvelopePhase phase,
    @JsonProperty("actor") String actor,
    @JsonProperty("attempt") Integer attempt,
    @JsonProperty("max_attempts") Integer maxAttempts,
    @JsonProperty("created_at") String createdAt,
    @JsonProperty("updated_at") String updatedAt,
    @JsonProperty("deadline_at") String deadlineAt,
    @JsonProperty("reason") String reason,
    @JsonProperty("error") String error,
    @JsonProperty("error_details") ErrorDetails errorDetails) {

  /** A status without error details (every phase but a handler's failure). */
  public EnvelopeStatus(
      EnvelopePhase phase,
      String actor,
      Integer attempt,
      Integer maxAttempts,
      String createdAt,
      String updatedAt,
      String deadlineAt,
      String reason,
      String error) {
    this(phase, actor, attempt, maxAttempts, createdAt, updatedAt, deadlineAt, reason, error, null);
  }

  /**
   * The status a new envelope is stamped with: phase pending, created and updated at {@code
   * createdAt}.
   */
  public static EnvelopeStatus pending(
      String byActor, Integer attempt, String createdAt, String deadlineAt) {
    return new EnvelopeStatus(
        EnvelopePhase.PENDING,
        byActor,
        attempt,
        null,
        createdAt,
        createdAt,
        deadlineAt,
        null,
        null);
  }

  public EnvelopeStatus withPhase(EnvelopePhase newPhase, String byActor, String now) {
    return new EnvelopeStatus(
        newPhase, byActor, attempt, maxAttempts, createdAt, now, deadlineAt, reason, error, null);
  }

  public EnvelopeStatus failed(String byActor, String now, String failReason, String failError) {
    return new EnvelopeStatus(
        EnvelopePhase.FAILED,
        byActor,
        attempt,
        maxAttempts,
        createdAt,
        now,
        deadlineAt,
        failReason,
        failError,
        null);
  }

  /** The same status with {@code details} of the failure (the handler's traceback among them). */
  public EnvelopeStatus withErrorDetails(ErrorDetails details) {
    return new EnvelopeStatus(
        phase,
        actor,
        attempt,
        maxAttempts,
        createdAt,
        updatedAt,
        deadlineAt,
        reason,
        error,
        details);
  }
}
