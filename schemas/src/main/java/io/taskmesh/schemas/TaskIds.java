package io.taskmesh.schemas;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.UUIDType;
import com.fasterxml.uuid.impl.TimeBasedEpochRandomGenerator;
import com.fasterxml.uuid.impl.UUIDUtil;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * Task ids: time-ordered UUIDs (version 7: the creation millisecond, then random bits). Any replica
 * can read from an id alone when its task was created, so a query for a task created a moment ago
 * waits for its created event to be folded instead of answering "not found", while an id that is
 * old, malformed or not ours answers at once.
 */
public final class TaskIds {
  private static final TimeBasedEpochRandomGenerator GENERATOR =
      Generators.timeBasedEpochRandomGenerator();

  private TaskIds() {}

  public static String next() {
    return GENERATOR.generate().toString();
  }

  /** When the task of {@code id} was created, if the id is one of ours (a version 7 UUID). */
  public static Optional<Instant> createdAt(String id) {
    if (id == null || id.length() != 36) {
      return Optional.empty();
    }
    UUID uuid;
    try {
      uuid = UUID.fromString(id);
    } catch (IllegalArgumentException notAUuid) {
      return Optional.empty();
    }
    if (UUIDUtil.typeOf(uuid) != UUIDType.TIME_BASED_EPOCH) {
      return Optional.empty();
    }
    return Optional.of(Instant.ofEpochMilli(UUIDUtil.extractTimestamp(uuid)));
  }
}
