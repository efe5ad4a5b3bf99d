package io.taskmesh.sidecar;

import java.util.List;
import java.util.Map;

/**
 * What handling one queue record produced: records to send, whether the process must stop, and what
 * to do once the batch's transaction has committed ({@code afterCommit}, e.g. a report that must
 * not be sent for records a crash could still roll back).
 */
record Outcome(List<Output> outputs, Kind kind, Runnable afterCommit, Failure failure) {

  Outcome(List<Output> outputs, Kind kind) {
    this(outputs, kind, null, null);
  }

  Outcome(List<Output> outputs, Kind kind, Runnable afterCommit) {
    this(outputs, kind, afterCommit, null);
  }

  /** The handler failed on the envelope: the exception's type and message, for the trace span. */
  record Failure(String type, String message) {}

  /** The same outcome, marked as the handler's failure (the span ends with status ERROR). */
  Outcome failing(String type, String message) {
    return new Outcome(outputs, kind, afterCommit, new Failure(type, message));
  }

  enum Kind {
    /** Send the outputs and commit the record's offset. */
    DONE,
    /** Send the outputs, commit, then exit with status 1 (the runtime call timed out). */
    DONE_THEN_EXIT,
    /** Commit nothing from here on and exit with status 1 (the runtime is gone). */
    EXIT_UNCOMMITTED
  }

  /**
   * One record to produce. {@code headers} become Kafka record headers (e.g. the dead-letter
   * reason).
   */
  // bytes carried from one side to the other, never compared or used as a key
  @SuppressWarnings("ArrayRecordComponent")
  record Output(String topic, String key, byte[] value, Map<String, String> headers) {
    Output(String topic, String key, byte[] value) {
      this(topic, key, value, Map.of());
    }
  }

  static Outcome done(List<Output> outputs) {
    return new Outcome(List.copyOf(outputs), Kind.DONE);
  }

  static Outcome done(Output output) {
    return done(List.of(output));
  }

  /**
   * Like {@link #done(List)}; {@code afterCommit} runs on the loop thread once the transaction
   * committed.
   */
  static Outcome doneThen(List<Output> outputs, Runnable afterCommit) {
    return new Outcome(List.copyOf(outputs), Kind.DONE, afterCommit);
  }

  static Outcome doneThenExit(Output output) {
    return doneThenExit(List.of(output));
  }

  static Outcome doneThenExit(List<Output> outputs) {
    return new Outcome(List.copyOf(outputs), Kind.DONE_THEN_EXIT);
  }

  static Outcome exitUncommitted() {
    return new Outcome(List.of(), Kind.EXIT_UNCOMMITTED);
  }
}
