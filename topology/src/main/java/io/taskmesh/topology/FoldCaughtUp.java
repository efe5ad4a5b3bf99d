package io.taskmesh.topology;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The live view's {@link TaskTopology.DeadlineGate}: a partition of the event log is caught up when
 * the Streams consumer's own lag on it ({@code records-lag}, log end minus position after its last
 * fetch; read_committed, so transaction markers count as read) is zero. Read from the client's
 * metrics, which are safe to read from the stream thread and cost no request to the broker.
 */
final class FoldCaughtUp implements TaskTopology.DeadlineGate {
  private final String topic;
  private volatile KafkaStreams streams;

  FoldCaughtUp(String topic) {
    this.topic = topic;
  }

  /** The topology is built before the client that runs it exists. */
  void bind(KafkaStreams streams) {
    this.streams = streams;
  }

  @Override
  public boolean caughtUp(int partition) {
    KafkaStreams s = streams;
    if (s == null) {
      return false;
    }
    String p = Integer.toString(partition);
    for (Map.Entry<MetricName, ? extends Metric> e : s.metrics().entrySet()) {
      MetricName n = e.getKey();
      if ("records-lag".equals(n.name())
          && "consumer-fetch-manager-metrics".equals(n.group())
          && topic.equals(n.tags().get("topic"))
          && p.equals(n.tags().get("partition"))
          && e.getValue().metricValue() instanceof Double lag
          && lag == 0.0) {
        return true;
      }
    }
    return false;
  }
}
