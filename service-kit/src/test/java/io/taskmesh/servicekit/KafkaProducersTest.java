package io.taskmesh.servicekit;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class KafkaProducersTest {
  @Test
  void theIdempotentPresetWaitsForAllReplicasAndDoesNotLinger() {
    assertThat(KafkaProducers.idempotent("b:9092").config())
        .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "b:9092")
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0)
        .hasSize(4);
  }

  @Test
  void theTransactionalPresetAddsItsIdAndAShortRetryBackoff() {
    assertThat(KafkaProducers.transactional("b:9092", "tx-1").config())
        .containsEntry(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1")
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
        .containsEntry(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 2)
        .containsEntry(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 50);
  }

  @Test
  void aProducersOwnSettingOverridesThePreset() {
    assertThat(
            KafkaProducers.idempotent("b:9092").set(ProducerConfig.LINGER_MS_CONFIG, 20).config())
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 20);
  }
}
