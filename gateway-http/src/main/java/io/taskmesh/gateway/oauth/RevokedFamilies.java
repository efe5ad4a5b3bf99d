package io.taskmesh.gateway.oauth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Whether a token family was revoked, asked on every authenticated request: answered from memory
 * and re-read from the database at most once per {@link #RECHECK_NANOS} per family, so a revocation
 * on another replica takes effect within a second while a request costs no query. A family revoked
 * here is refused at once. When the database cannot answer and nothing is known, the family counts
 * as revoked (fail closed).
 */
public final class RevokedFamilies {
  static final long RECHECK_NANOS = 1_000_000_000L;
  private static final int MAX_ENTRIES = 100_000;

  private final Predicate<String> lookup;
  private final LongSupplier nanos;
  private final Map<String, Entry> known = new ConcurrentHashMap<>();

  private record Entry(boolean revoked, long checkedAt) {}

  public RevokedFamilies(Predicate<String> lookup, LongSupplier nanos) {
    this.lookup = lookup;
    this.nanos = nanos;
  }

  public boolean isRevoked(String familyId) {
    long now = nanos.getAsLong();
    Entry e = known.get(familyId);
    if (e != null && (e.revoked() || now - e.checkedAt() < RECHECK_NANOS)) {
      return e.revoked();
    }
    boolean revoked;
    try {
      revoked = lookup.test(familyId);
    } catch (RuntimeException unavailable) {
      return e == null || e.revoked();
    }
    if (known.size() >= MAX_ENTRIES) {
      known.clear();
    }
    known.put(familyId, new Entry(revoked, now));
    return revoked;
  }

  /** A family revoked by this process: refused from now on without asking the database. */
  public void revoked(String familyId) {
    known.put(familyId, new Entry(true, nanos.getAsLong()));
  }
}
