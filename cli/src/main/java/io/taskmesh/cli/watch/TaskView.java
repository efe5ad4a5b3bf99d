package io.taskmesh.cli.watch;

import com.fasterxml.jackson.databind.JsonNode;

/** Where a followed task is shown: a live terminal or plain lines. */
public interface TaskView extends AutoCloseable {
  /** After {@code update} was folded into {@code progress}. */
  void update(TaskProgress progress, JsonNode update);

  /** A FLY event's text, as it streams. */
  void token(String text);

  /** A note between updates, e.g. a dropped connection being resumed. */
  void note(String text);

  /** The task ended (or waits): show how. */
  void end(TaskProgress progress);

  @Override
  void close();
}
