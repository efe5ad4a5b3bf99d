package io.taskmesh.gateway.launch;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;

/**
 * Where the gateway sends work: the actor queues and x-pause's resume topic. A port so that the
 * HTTP edge can be tested in-process; {@link EnvelopeDispatcher} is the Kafka implementation.
 */
public interface EnvelopeQueue {
  /** Sends the envelope to its current actor's queue; returns once the queue has it. */
  void dispatch(String namespace, Envelope envelope);

  /** Hands new input to a parked envelope; returns once the resume topic has it. */
  void resume(String namespace, String envelopeId, JsonNode input);
}
