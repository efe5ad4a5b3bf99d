package io.taskmesh.servicekit.ops;

import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Binds a Kafka client's own metrics (fetch lag, request latency, record rates...) to {@link
 * ServiceMetrics#registry()}. Apart from {@link ServiceMetrics} so that a module without Kafka
 * (kv-connector) never loads a Kafka type; Kafka Streams is bound where it runs (topology {@code
 * TaskViewMetrics}). Each binder is returned so the client's owner closes it with the client; the
 * meters carry the client's {@code client_id}.
 */
public final class KafkaMeters {
  private KafkaMeters() {}

  public static AutoCloseable bind(Consumer<?, ?> consumer) {
    KafkaClientMetrics m = new KafkaClientMetrics(consumer);
    m.bindTo(ServiceMetrics.registry());
    return m;
  }

  public static AutoCloseable bind(Producer<?, ?> producer) {
    KafkaClientMetrics m = new KafkaClientMetrics(producer);
    m.bindTo(ServiceMetrics.registry());
    return m;
  }

  public static AutoCloseable bind(AdminClient admin) {
    KafkaClientMetrics m = new KafkaClientMetrics(admin);
    m.bindTo(ServiceMetrics.registry());
    return m;
  }

  /** Closes a binder returned above, ignoring failures (the client is going away anyway). */
  public static void unbind(AutoCloseable binder) {
    if (binder == null) {
      return;
    }
    try {
      binder.close();
    } catch (Exception ignored) {
      // meters of a closed client read NaN until removed; nothing else depends on them
    }
  }
}
