package io.taskmesh.gateway.ui;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The dashboard's sessions: an opaque random id (the cookie's value) mapped to the principal that
 * opened it, so the cookie never carries the API key or access token. Bounded ({@link #MAX}: when
 * full, expired sessions are dropped, then the oldest), each expires {@link #TTL} after it was
 * opened, and {@link #close} ends one at once. Kept in memory on the replica that opened it.
 */
public final class UiSessions {
  static final Duration TTL = Duration.ofMinutes(15);
  static final int MAX = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  private record Session(String principal, long expiresAtNanos) {}

  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;

  public UiSessions(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** A new session of {@code principal}; returns its id (32 random bytes, base64url). */
  String open(String principal) {
    if (sessions.size() >= MAX) {
      makeRoom();
    }
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    String id = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    sessions.put(id, new Session(principal, nanoTime.getAsLong() + TTL.toNanos()));
    return id;
  }

  /** The principal of a live session; empty for an unknown, closed or expired id. */
  public Optional<String> principal(String id) {
    Session s = id == null ? null : sessions.get(id);
    if (s == null) {
      return Optional.empty();
    }
    if (nanoTime.getAsLong() - s.expiresAtNanos() >= 0) {
      sessions.remove(id, s);
      return Optional.empty();
    }
    return Optional.of(s.principal());
  }

  void close(String id) {
    if (id != null) {
      sessions.remove(id);
    }
  }

  int size() {
    return sessions.size();
  }

  private synchronized void makeRoom() {
    long now = nanoTime.getAsLong();
    sessions.entrySet().removeIf(e -> now - e.getValue().expiresAtNanos() >= 0);
    while (sessions.size() >= MAX) {
      sessions.entrySet().stream()
          .min((x, y) -> Long.compare(x.getValue().expiresAtNanos(), y.getValue().expiresAtNanos()))
          .ifPresent(oldest -> sessions.remove(oldest.getKey()));
    }
  }
}
