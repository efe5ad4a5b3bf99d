package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.Await;
import io.taskmesh.servicekit.Threads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class EarlyOffsetsTest {
  private static final ConsumerGroupMetadata GROUP = new ConsumerGroupMetadata("svc-default-upper");
  private static final TopicPartition P0 = new TopicPartition("svc-default-upper", 0);
  private static final Map<TopicPartition, OffsetAndMetadata> ALL =
      Map.of(P0, ActorLoop.premark(8));
  private static final Duration LONG = Duration.ofMinutes(1);

  private final ScheduledExecutorService sender = Threads.scheduler("offsets-test");
  private MockProducer<String, byte[]> producer;

  @BeforeEach
  void transactionalProducer() {
    producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    producer.initTransactions();
  }

  @AfterEach
  void stopSender() {
    sender.shutdownNow();
  }

  @Test
  void aBatchThatCommitsWhatWasSentEarlyCommitsItInTheEarlyTransaction() {
    EarlyOffsets early = EarlyOffsets.begin(producer, sender, ALL, GROUP, LONG);

    assertThat(early.claim(Map.of(P0, ActorLoop.premark(8)))).isTrue();
    early.awaitSent();
    producer.commitTransaction();

    assertThat(producer.consumerGroupOffsetsHistory())
        .containsExactly(Map.of(GROUP.groupId(), ALL));
    assertThat(producer.transactionAborted()).isFalse();
  }

  @Test
  void aBatchThatStoppedBeforeItsLastRecordAbortsTheEarlyTransactionAndBeginsItsOwn() {
    EarlyOffsets early = EarlyOffsets.begin(producer, sender, ALL, GROUP, LONG);

    assertThat(early.claim(Map.of(P0, ActorLoop.premark(6)))).isFalse();

    assertThat(producer.transactionAborted()).isTrue();
    assertThat(producer.transactionInFlight()).isFalse();
    producer.beginTransaction(); // the caller's own: nothing of the early one is left open
    producer.sendOffsetsToTransaction(Map.of(P0, ActorLoop.premark(6)), GROUP);
    producer.commitTransaction();
    assertThat(producer.consumerGroupOffsetsHistory())
        .containsExactly(Map.of(GROUP.groupId(), Map.of(P0, ActorLoop.premark(6))));
  }

  @Test
  void aHandlerThatRunsPastTheLimitFindsTheEarlyTransactionAbortedBeforeTheCoordinatorWould() {
    EarlyOffsets early = EarlyOffsets.begin(producer, sender, ALL, GROUP, Duration.ofMillis(20));
    Await.until(producer::transactionAborted, Duration.ofSeconds(10), "the sender aborted it");

    assertThat(early.claim(ALL)).isFalse();
    assertThat(producer.transactionInFlight()).isFalse();
    assertThat(producer.consumerGroupOffsetsHistory()).isEmpty();
  }

  @Test
  void aFailedEarlySendFailsTheCommitAsSendOffsetsToTransactionWould() {
    producer.sendOffsetsToTransactionException = new KafkaException("coordinator moved");
    EarlyOffsets early = EarlyOffsets.begin(producer, sender, ALL, GROUP, LONG);

    assertThat(early.claim(ALL)).isTrue();
    assertThatThrownBy(early::awaitSent)
        .isInstanceOf(KafkaException.class)
        .hasMessage("coordinator moved");
    assertThat(producer.transactionInFlight()).isTrue(); // the caller aborts it, as before
  }

  @Test
  void anAbortThatFailsAtTheLimitFailsTheClaimSoTheProducerIsReplaced() {
    producer.abortTransactionException = new KafkaException("fenced meanwhile");
    EarlyOffsets early = EarlyOffsets.begin(producer, sender, ALL, GROUP, Duration.ofMillis(20));

    Await.until(early::expired, Duration.ofSeconds(10), "the limit passed");

    assertThatThrownBy(() -> early.claim(ALL))
        .isInstanceOf(KafkaException.class)
        .hasMessage("fenced meanwhile");
  }
}
