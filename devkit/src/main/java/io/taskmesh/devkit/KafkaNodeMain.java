package io.taskmesh.devkit;

import java.util.Arrays;

/**
 * The main of a local broker's JVM ({@link LocalKafka}): with {@code --format CLUSTER_ID} first it
 * formats the node's storage, then runs the broker, so a first start costs one JVM start instead of
 * two (the storage tool in a JVM of its own, then the broker). A format that fails ends the JVM
 * with the tool's exit code; its words are in the broker's log.
 *
 * <p>Args: {@code [--format CLUSTER_ID] SERVER_PROPERTIES}.
 */
public final class KafkaNodeMain {
  private KafkaNodeMain() {}

  public static void main(String[] args) {
    String[] serve = args;
    if (args.length == 3 && "--format".equals(args[0])) {
      int rc =
          kafka.tools.StorageTool.execute(
              new String[] {"format", "-t", args[1], "-c", args[2]}, System.out);
      if (rc != 0) {
        System.out.println("kafka storage format failed (exit " + rc + ")");
        System.exit(rc);
      }
      serve = Arrays.copyOfRange(args, 2, 3);
    }
    kafka.Kafka.main(serve);
  }
}
