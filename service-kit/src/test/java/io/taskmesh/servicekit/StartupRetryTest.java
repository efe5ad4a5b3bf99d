package io.taskmesh.servicekit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class StartupRetryTest {

  @Test
  void aConnectionThatWorksOnTheThirdAttemptStartsTheService() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    StartupRetry retry = new StartupRetry("Postgres", Duration.ofSeconds(30), e -> true);

    String answer =
        retry.run(
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw new IOException("Connection refused");
              }
              return "connected";
            });

    assertThat(answer).isEqualTo("connected");
    assertThat(retry.attempts()).isEqualTo(3);
  }

  @Test
  void givingUpSaysWhatWasUnreachableTheLastProblemAndTheVariableToRaise() {
    StartupRetry retry = new StartupRetry("Postgres", Duration.ZERO, e -> true);

    assertThatThrownBy(
            () ->
                retry.run(
                    () -> {
                      throw new IOException("Connection   refused\n(port 5432)");
                    }))
        .isInstanceOf(StartupRetry.GaveUp.class)
        .hasMessage(
            "Postgres still unreachable after 0 s (1 attempts; last: Connection refused (port"
                + " 5432)); set SVC_STARTUP_RETRY_TIMEOUT to wait longer");
  }

  @Test
  void aFailureNotWorthRetryingEndsTheStartAtOnce() {
    StartupRetry retry = new StartupRetry("Postgres", Duration.ofSeconds(30), e -> false);

    assertThatThrownBy(
            () ->
                retry.run(
                    () -> {
                      throw new IOException("password authentication failed");
                    }))
        .isInstanceOf(StartupRetry.GaveUp.class)
        .hasMessage("Postgres: password authentication failed");
    assertThat(retry.attempts()).isEqualTo(1);
  }

  @Test
  void theLimitComesFromTheEnvironmentWithASixtySecondDefault() {
    assertThat(StartupRetry.limit(Env.of(Map.of()))).isEqualTo(Duration.ofSeconds(60));
    assertThat(StartupRetry.limit(Env.of(Map.of("SVC_STARTUP_RETRY_TIMEOUT", "2m"))))
        .isEqualTo(Duration.ofMinutes(2));
    assertThatThrownBy(
            () -> StartupRetry.limit(Env.of(Map.of("SVC_STARTUP_RETRY_TIMEOUT", "soon"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SVC_STARTUP_RETRY_TIMEOUT");
  }

  @Test
  void postgresIsRetriedWhileItDoesNotAcceptConnectionsButNotForARefusedLogin() {
    assertThat(StartupRetry.postgresNotUpYet(new SQLException("Connection refused", "08001")))
        .isTrue();
    assertThat(StartupRetry.postgresNotUpYet(new SQLException("starting up", "57P03"))).isTrue();
    assertThat(StartupRetry.postgresNotUpYet(new SQLException("pool timed out"))).isTrue();
    assertThat(StartupRetry.postgresNotUpYet(new SQLException("bad password", "28P01"))).isFalse();
    assertThat(StartupRetry.postgresNotUpYet(new SQLException("no such database", "3D000")))
        .isFalse();
    assertThat(
            StartupRetry.postgresNotUpYet(
                new SQLException("timed out", new SQLException("bad password", "28P01"))))
        .isFalse();
    assertThat(StartupRetry.postgresNotUpYet(new IOException("not SQL"))).isFalse();
  }

  @Test
  void kafkaIsRetriedOnTimeoutsAndRetriableErrorsOnly() {
    assertThat(
            TopicCreator.worthRetrying(
                new IllegalStateException(
                    "no answer", new java.util.concurrent.TimeoutException())))
        .isTrue();
    assertThat(
            TopicCreator.worthRetrying(
                new IllegalStateException(
                    "Timed out waiting for a node assignment",
                    new org.apache.kafka.common.errors.TimeoutException("node assignment"))))
        .isTrue();
    assertThat(
            TopicCreator.worthRetrying(
                new IllegalStateException(
                    "refused",
                    new org.apache.kafka.common.errors.InvalidReplicationFactorException("3 > 1"))))
        .isFalse();
  }
}
