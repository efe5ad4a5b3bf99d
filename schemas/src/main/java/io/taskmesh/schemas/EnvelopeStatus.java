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
    @JsonProperty("error") String error) {

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
        newPhase, byActor, attempt, maxAttempts, createdAt, now, deadlineAt, reason, error);
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
        failError);
  }
}
