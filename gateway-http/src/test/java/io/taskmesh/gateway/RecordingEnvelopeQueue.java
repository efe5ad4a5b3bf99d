package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.launch.DispatchException;
import io.taskmesh.gateway.launch.EnvelopeQueue;
import io.taskmesh.schemas.Envelope;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The actor queues in memory: keeps what was dispatched and resumed; can refuse like a broker that
 * is down.
 */
final class RecordingEnvelopeQueue implements EnvelopeQueue {
  /** One resume record as x-pause would read it. */
  record Resume(String namespace, String envelopeId, JsonNode input) {}

  private final List<Envelope> dispatched = new CopyOnWriteArrayList<>();
  private final List<Resume> resumed = new CopyOnWriteArrayList<>();
  private volatile boolean down;

  @Override
  public void dispatch(String namespace, Envelope envelope) {
    if (down) {
      throw new DispatchException("in-memory queue is down", null);
    }
    dispatched.add(envelope);
  }

  @Override
  public void resume(String namespace, String envelopeId, JsonNode input) {
    if (down) {
      throw new DispatchException("in-memory queue is down", null);
    }
    resumed.add(new Resume(namespace, envelopeId, input));
  }

  List<Envelope> dispatched() {
    return List.copyOf(dispatched);
  }

  List<Resume> resumed() {
    return List.copyOf(resumed);
  }

  void down(boolean isDown) {
    down = isDown;
  }
}
