package io.taskmesh.gateway.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The dashboard's session store: opaque ids, expiry, sign-out, and a bound on its size. */
class UiSessionsTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final UiSessions sessions = new UiSessions(now::get);

  @Test
  void aSessionNamesItsPrincipalUntilItExpires() {
    String id = sessions.open("client-a");
    assertThat(sessions.principal(id)).contains("client-a");
    now.addAndGet(UiSessions.TTL.toNanos() - 1);
    assertThat(sessions.principal(id)).contains("client-a");
    now.addAndGet(1);
    assertThat(sessions.principal(id)).isEmpty();
    assertThat(sessions.size()).isZero();
  }

  @Test
  void closingEndsItAndUnknownIdsNameNobody() {
    String id = sessions.open("client-a");
    sessions.close(id);
    assertThat(sessions.principal(id)).isEmpty();
    assertThat(sessions.principal("guessed")).isEmpty();
    assertThat(sessions.principal(null)).isEmpty();
  }

  @Test
  void theStoreStaysBoundedDroppingTheOldestSession() {
    String first = sessions.open("oldest");
    for (int i = 1; i < UiSessions.MAX; i++) {
      now.incrementAndGet();
      sessions.open("p" + i);
    }
    now.incrementAndGet();
    String newest = sessions.open("newest");
    assertThat(sessions.size()).isEqualTo(UiSessions.MAX);
    assertThat(sessions.principal(first)).isEmpty();
    assertThat(sessions.principal(newest)).contains("newest");
  }
}
