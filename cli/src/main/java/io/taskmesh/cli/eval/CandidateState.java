package io.taskmesh.cli.eval;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The state-proxy mounts the candidate runtime gets: the live actor's, each on a scratch prefix of
 * the same backend, so that the candidate reads and writes as the live actor does and never touches
 * a live key.
 */
public interface CandidateState extends AutoCloseable {
  /**
   * The mounts of replay {@code evalId} as the report's header lists them; checked before anything
   * runs.
   *
   * @throws EvalFailure with exit 2 when a scratch prefix could hold live keys or a backend is
   *     unknown
   */
  List<Map<String, Object>> plan(String evalId);

  /** Starts the connectors planned, their sockets in {@code socketDir}; the runtime's variables. */
  Map<String, String> start(Path socketDir);

  /** Stops the connectors; never throws. */
  @Override
  void close();
}
