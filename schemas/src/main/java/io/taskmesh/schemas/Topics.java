package io.taskmesh.schemas;

/** Topic names: the task log, the update feed, and one queue per actor. */
public final class Topics {
  public static final String TASK_EVENTS = "svc.task-events";
  public static final String TASK_UPDATES = "svc.task-updates";
  public static final String SINK = "x-sink";
  public static final String SUMP = "x-sump";
  public static final String PAUSE = "x-pause";

  private Topics() {}

  /** {@code svc-{namespace}-{actor}}: an actor's queue. */
  public static String actorQueue(String namespace, String actor) {
    return "svc-" + namespace + "-" + actor;
  }

  /**
   * {@code svc-{namespace}-x-pause.resume}: where a resume of a parked envelope is produced (value
   * {@code {"id": <envelope id>, "input": <json>}}); x-pause consumes it.
   */
  public static String pauseResume(String namespace) {
    return actorQueue(namespace, PAUSE) + ".resume";
  }

  /** The actor's dead-letter topic. */
  public static String deadLetter(String namespace, String actor) {
    return actorQueue(namespace, actor) + ".dlq";
  }

  public static boolean isCrewActor(String actor) {
    return SINK.equals(actor) || SUMP.equals(actor);
  }
}
