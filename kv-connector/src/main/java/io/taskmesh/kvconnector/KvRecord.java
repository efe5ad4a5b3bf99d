package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.time.Instant;

/** A stored row; {@code valueJson} is the jsonb text as Postgres returns it. */
public record KvRecord(String key, String valueJson, Instant createdAt, Instant updatedAt) {

  /**
   * {@code {"key":..., "value":..., "created_at":..., "updated_at":...}} without re-parsing the
   * value.
   */
  public String toJson() {
    StringBuilder sb = new StringBuilder(valueJson.length() + key.length() + 96);
    appendTo(sb);
    return sb.toString();
  }

  void appendTo(StringBuilder sb) {
    sb.append("{\"key\":\"");
    JsonStringEncoder.getInstance().quoteAsString(key, sb);
    sb.append("\",\"value\":").append(valueJson).append(",\"created_at\":");
    IsoInstant.appendQuoted(sb, createdAt);
    sb.append(",\"updated_at\":");
    IsoInstant.appendQuoted(sb, updatedAt);
    sb.append('}');
  }
}
