package io.taskmesh.cli;

import io.taskmesh.connectors.ConnectorType;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ./taskmesh connector <type>}: one state-proxy connector, configured from its environment,
 * serving the connector protocol on {@code CONNECTOR_SOCKET} until SIGTERM. The same entry point
 * {@code ./taskmesh dev} starts for each {@code stateProxy} mount.
 */
@Command(
    name = "connector",
    mixinStandardHelpOptions = true,
    description = {
      "Run a state-proxy connector from its environment (CONNECTOR_SOCKET, STATE_BUCKET, "
          + "STATE_PREFIX, OBJSTORE_REGION, OBJSTORE_ENDPOINT_URL, STATE_PRESIGN_TTL, ...).",
      "Exit 2 names a bad or missing variable."
    })
final class ConnectorCommand implements Callable<Integer> {

  @Parameters(
      arity = "0..1",
      paramLabel = "<type>",
      completionCandidates = KnownTypes.class,
      description = "connector type (default: CONNECTOR_TYPE); one of: ${COMPLETION-CANDIDATES}")
  String type;

  @Override
  public Integer call() throws Exception {
    // the connector's own main: reports a bad setting with exit 2, serves until its shutdown hook
    // runs
    io.taskmesh.connectors.Main.main(type == null ? new String[0] : new String[] {type});
    return 0;
  }

  /** The types state-connectors knows today, so the usage never lists a stale set. */
  static final class KnownTypes implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Arrays.stream(ConnectorType.values()).map(ConnectorType::suffix).iterator();
    }
  }
}
