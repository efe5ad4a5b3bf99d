package io.taskmesh.kvconnector;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of {@code STATE_PROXY_PG_INDEXES}: either a plain field name ({@code status}: a btree
 * index on {@code value->>'status'}) or a cast ({@code (deadline_at)::timestamptz}: a btree index
 * on the field's text value cast to that type). Nothing else is accepted, so no index spec can
 * inject SQL: the field matches {@link #FIELD} and the type is one of {@link #CASTS}.
 */
public record IndexSpec(String field, String castType) {
  /** Field names of the query DSL and of index specs. */
  public static final Pattern FIELD = Pattern.compile("^[a-zA-Z_][a-zA-Z0-9_]*$");

  /** Index names are {@code kv_idx_<field>[_<type>]}; Postgres identifiers stop at 63 bytes. */
  public static final int MAX_INDEXED_FIELD_LENGTH = 40;

  private static final Pattern CAST =
      Pattern.compile("^\\(\\s*([^()\\s]+)\\s*\\)\\s*::\\s*([A-Za-z0-9]+)$");

  /** Supported cast types: the SQL type and the name used in the try-cast function / index name. */
  public static final Map<String, String> CASTS =
      Map.of(
          "timestamptz", "timestamptz",
          "timestamp", "timestamp",
          "date", "date",
          "numeric", "numeric",
          "bigint", "bigint",
          "integer", "integer",
          "int", "integer",
          "float8", "float8",
          "boolean", "boolean");

  public IndexSpec {
    if (field == null || !FIELD.matcher(field).matches()) {
      throw new IllegalArgumentException(
          "field name '" + field + "' does not match " + FIELD.pattern());
    }
    if (field.length() > MAX_INDEXED_FIELD_LENGTH) {
      throw new IllegalArgumentException(
          "field name '" + field + "' is longer than " + MAX_INDEXED_FIELD_LENGTH + " characters");
    }
    if (castType != null && !CASTS.containsValue(castType)) {
      throw new IllegalArgumentException(
          "cast type '" + castType + "' is not one of " + CASTS.keySet());
    }
  }

  /**
   * Parses {@code status} or {@code (deadline_at)::timestamptz}; throws with a reason otherwise.
   */
  public static IndexSpec parse(String raw) {
    String s = raw == null ? "" : raw.trim();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("empty index spec");
    }
    if (FIELD.matcher(s).matches()) {
      return new IndexSpec(s, null);
    }
    Matcher m = CAST.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "index spec '"
              + s
              + "' is neither a field name nor a cast like (deadline_at)::timestamptz");
    }
    String type = CASTS.get(m.group(2).toLowerCase(Locale.ROOT));
    if (type == null) {
      throw new IllegalArgumentException(
          "index spec '" + s + "': cast type '" + m.group(2) + "' is not one of " + CASTS.keySet());
    }
    return new IndexSpec(m.group(1), type);
  }

  /**
   * The indexed SQL expression; the query compiler uses the very same text so the index applies.
   */
  public String expression() {
    return castType == null
        ? textExpression(field)
        : tryCastFunction(castType) + "(" + textExpression(field) + ")";
  }

  public String indexName() {
    return castType == null ? "kv_idx_" + field : "kv_idx_" + field + "_" + castType;
  }

  static String textExpression(String field) {
    return "(value->>'" + field + "')";
  }

  /**
   * Casts of text to timestamptz are not IMMUTABLE (they read the session time zone), and a plain
   * cast would make every insert of a bad value fail. So a cast index goes through an IMMUTABLE
   * function that returns NULL for an unparsable value. Values should carry an explicit offset.
   */
  static String tryCastFunction(String castType) {
    return "kv_try_" + castType;
  }

  static String tryCastFunctionDdl(String castType) {
    String fn = tryCastFunction(castType);
    return "CREATE OR REPLACE FUNCTION "
        + fn
        + "(t text) RETURNS "
        + castType
        + " LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$ BEGIN RETURN t::"
        + castType
        + "; EXCEPTION WHEN others THEN RETURN NULL; END $$";
  }

  @Override
  public String toString() {
    return castType == null ? field : "(" + field + ")::" + castType;
  }
}
