package io.taskmesh.kvconnector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.servicekit.ApiException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compiles the {@code POST /query} body into parameterized SQL. Field names are checked against
 * {@link IndexSpec#FIELD} before they are spliced into SQL (they appear as {@code value->'field'});
 * every value goes through a placeholder. Semantics, per operator, on field {@code f}:
 *
 * <ul>
 *   <li>{@code f: v} / {@code $eq}: JSON equality (numbers compare numerically);
 *   <li>{@code $ne}: not equal, missing fields included;
 *   <li>{@code $gt $gte $lt $lte}: operand a number (compares numbers only) or a string (compares
 *       strings only, byte order); if an index spec casts {@code f}, string operands compare as
 *       that type (e.g. timestamps with different offsets);
 *   <li>{@code $in} / {@code $nin}: operand an array of values (at most 1000); {@code $nin}
 *       includes missing fields;
 *   <li>{@code $exists}: operand boolean;
 *   <li>{@code $contains}: string operand: substring of a string field or element of an array
 *       field; any other operand: JSON containment ({@code @>}) of the field.
 * </ul>
 */
final class QueryCompiler {
  static final int MAX_IN = 1000;
  static final int MAX_SORT = 8;
  private static final Set<String> TOP_LEVEL =
      Set.of("prefix", "filter", "sort", "limit", "offset", "count");
  private static final String COLUMNS = "key, value::text AS value, created_at, updated_at";

  private final Map<String, IndexSpec> castIndexes;

  QueryCompiler(List<IndexSpec> indexes) {
    Map<String, IndexSpec> casts = new HashMap<>();
    for (IndexSpec spec : indexes) {
      if (spec.castType() != null) {
        casts.putIfAbsent(spec.field(), spec);
      }
    }
    this.castIndexes = Map.copyOf(casts);
  }

  Query compile(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("query body must be a JSON object");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!TOP_LEVEL.contains(name)) {
        throw ApiException.badRequest("unknown query field '" + name + "'; allowed: " + TOP_LEVEL);
      }
    }
    StringBuilder where = new StringBuilder("TRUE");
    List<Object> params = new ArrayList<>();
    JsonNode prefix = body.get("prefix");
    if (prefix != null && !prefix.isNull()) {
      if (!prefix.isTextual()) {
        throw ApiException.badRequest("'prefix' must be a string");
      }
      if (!prefix.asText().isEmpty()) {
        where.append(" AND key LIKE ? ESCAPE '\\'");
        params.add(likePrefix(prefix.asText()));
      }
    }
    JsonNode filter = body.get("filter");
    if (filter != null && !filter.isNull()) {
      if (!filter.isObject()) {
        throw ApiException.badRequest(
            "'filter' must be an object of field to value or operator object");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = filter.properties().iterator();
          it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        field(e.getKey(), "filter");
        condition(e.getKey(), e.getValue(), where, params);
      }
    }
    String order = orderBy(body.get("sort"));
    Long limit = nonNegative(body, "limit");
    Long offset = nonNegative(body, "offset");
    JsonNode count = body.get("count");
    if (count != null && !count.isNull() && !count.isBoolean()) {
      throw ApiException.badRequest("'count' must be a boolean");
    }
    boolean wantCount = count != null && count.asBoolean(false);

    StringBuilder select =
        new StringBuilder("SELECT ")
            .append(COLUMNS)
            .append(" FROM kv WHERE ")
            .append(where)
            .append(" ORDER BY ")
            .append(order);
    List<Object> selectParams = new ArrayList<>(params);
    if (limit != null) {
      select.append(" LIMIT ?");
      selectParams.add(limit);
    }
    if (offset != null && offset > 0) {
      select.append(" OFFSET ?");
      selectParams.add(offset);
    }
    String countSql = wantCount ? "SELECT count(*) FROM kv WHERE " + where : null;
    return new Query(select.toString(), selectParams, countSql, wantCount ? params : List.of());
  }

  static String likePrefix(String prefix) {
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
  }

  static String field(String name, String where) {
    if (name == null || !IndexSpec.FIELD.matcher(name).matches()) {
      throw ApiException.badRequest(
          "invalid field name in " + where + ": must match " + IndexSpec.FIELD.pattern());
    }
    return name;
  }

  private void condition(String f, JsonNode v, StringBuilder where, List<Object> params) {
    if (v.isObject() && v.size() > 0 && isOperatorObject(v)) {
      for (Iterator<Map.Entry<String, JsonNode>> it = v.properties().iterator(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> op = it.next();
        where.append(" AND ");
        operator(f, op.getKey(), op.getValue(), where, params);
      }
    } else {
      where.append(" AND ");
      eq(f, v, where, params);
    }
  }

  private static boolean isOperatorObject(JsonNode v) {
    int ops = 0;
    for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
      if (it.next().startsWith("$")) {
        ops++;
      }
    }
    if (ops > 0 && ops != v.size()) {
      throw ApiException.badRequest("an operator object cannot mix $operators and plain keys");
    }
    return ops > 0;
  }

  private void operator(String f, String op, JsonNode v, StringBuilder sql, List<Object> params) {
    String jf = "(value->'" + f + "')";
    switch (op) {
      case "$eq" -> eq(f, v, sql, params);
      case "$ne" -> {
        sql.append("(").append(jf).append(" IS DISTINCT FROM ?::jsonb)");
        params.add(v.toString());
      }
      case "$gt", "$gte", "$lt", "$lte" -> compare(f, op, v, sql, params);
      case "$in", "$nin" -> {
        if (!v.isArray()) {
          throw ApiException.badRequest(op + " on '" + f + "' needs an array");
        }
        if (v.size() > MAX_IN) {
          throw ApiException.badRequest(op + " on '" + f + "' has more than " + MAX_IN + " values");
        }
        if (v.isEmpty()) {
          sql.append(op.equals("$in") ? "FALSE" : "TRUE");
          return;
        }
        StringBuilder list = new StringBuilder();
        for (JsonNode item : v) {
          list.append(list.length() == 0 ? "?::jsonb" : ", ?::jsonb");
          params.add(item.toString());
        }
        if (op.equals("$in")) {
          sql.append("(").append(jf).append(" IN (").append(list).append("))");
        } else {
          sql.append("(")
              .append(jf)
              .append(" IS NULL OR ")
              .append(jf)
              .append(" NOT IN (")
              .append(list)
              .append("))");
        }
      }
      case "$exists" -> {
        if (!v.isBoolean()) {
          throw ApiException.badRequest("$exists on '" + f + "' needs true or false");
        }
        sql.append(v.asBoolean() ? "(value ?? ?)" : "(NOT (value ?? ?))");
        params.add(f);
      }
      case "$contains" -> {
        if (v.isTextual()) {
          sql.append("((jsonb_typeof(")
              .append(jf)
              .append(") = 'string' AND strpos(value->>'")
              .append(f)
              .append("', ?) > 0) OR (jsonb_typeof(")
              .append(jf)
              .append(") = 'array' AND ")
              .append(jf)
              .append(" @> ?::jsonb))");
          params.add(v.asText());
          params.add(JsonNodeFactory.instance.arrayNode().add(v).toString());
        } else {
          sql.append("(").append(jf).append(" @> ?::jsonb)");
          params.add(v.toString());
        }
      }
      default ->
          throw ApiException.badRequest(
              "unknown operator '"
                  + op
                  + "' on '"
                  + f
                  + "'; allowed: $eq $ne $gt $gte $lt $lte $in $nin $exists $contains");
    }
  }

  private static void eq(String f, JsonNode v, StringBuilder sql, List<Object> params) {
    String jf = "(value->'" + f + "')";
    if (v.isValueNode() && !v.isNull()) {
      // containment narrows through the GIN index, equality keeps the exact meaning
      ObjectNode probe = JsonNodeFactory.instance.objectNode();
      probe.set(f, v);
      sql.append("(value @> ?::jsonb AND ").append(jf).append(" = ?::jsonb");
      params.add(probe.toString());
      params.add(v.toString());
      if (v.isTextual()) {
        // lets an expression index on value->>'f' (STATE_PROXY_PG_INDEXES=f) serve the lookup
        sql.append(" AND ").append(IndexSpec.textExpression(f)).append(" = ?");
        params.add(v.asText());
      }
      sql.append(")");
    } else {
      sql.append("(").append(jf).append(" = ?::jsonb)");
      params.add(v.toString());
    }
  }

  private void compare(String f, String op, JsonNode v, StringBuilder sql, List<Object> params) {
    String cmp =
        switch (op) {
          case "$gt" -> ">";
          case "$gte" -> ">=";
          case "$lt" -> "<";
          default -> "<=";
        };
    String jf = "(value->'" + f + "')";
    if (v.isNumber()) {
      // CASE, not AND: Postgres does not promise to evaluate AND left to right, and the cast of a
      // string would fail
      sql.append("((CASE WHEN jsonb_typeof(")
          .append(jf)
          .append(") = 'number' THEN ")
          .append(jf)
          .append("::numeric END) ")
          .append(cmp)
          .append(" ?)");
      params.add(new BigDecimal(v.asText()));
    } else if (v.isTextual()) {
      IndexSpec cast = castIndexes.get(f);
      if (cast != null) {
        sql.append("(")
            .append(cast.expression())
            .append(" ")
            .append(cmp)
            .append(" ?::")
            .append(cast.castType())
            .append(")");
      } else {
        sql.append("(jsonb_typeof(")
            .append(jf)
            .append(") = 'string' AND ")
            .append(IndexSpec.textExpression(f))
            .append(" COLLATE \"C\" ")
            .append(cmp)
            .append(" ?)");
      }
      params.add(v.asText());
    } else {
      throw ApiException.badRequest(op + " on '" + f + "' needs a number or a string");
    }
  }

  private static String orderBy(JsonNode sort) {
    if (sort == null || sort.isNull()) {
      return "key";
    }
    List<String> items = new ArrayList<>();
    // the spec's sort is string[]; a lone string is refused rather than guessed at
    if (sort.isArray()) {
      for (JsonNode s : sort) {
        if (!s.isTextual()) {
          throw ApiException.badRequest("'sort' entries must be strings like \"-created_at\"");
        }
        items.add(s.asText());
      }
    } else {
      throw ApiException.badRequest(
          "'sort' must be an array of field names, '-' prefix for descending");
    }
    if (items.size() > MAX_SORT) {
      throw ApiException.badRequest("'sort' has more than " + MAX_SORT + " fields");
    }
    StringBuilder order = new StringBuilder();
    for (String item : items) {
      boolean desc = item.startsWith("-");
      String f = field(desc ? item.substring(1) : item, "sort");
      // jsonb ordering: numbers numerically, strings as strings (never a number against a string)
      order
          .append("(value->'")
          .append(f)
          .append("') ")
          .append(desc ? "DESC NULLS LAST" : "ASC NULLS LAST")
          .append(", ");
    }
    return order.append("key").toString();
  }

  private static Long nonNegative(JsonNode body, String name) {
    JsonNode n = body.get(name);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isIntegralNumber() || n.asLong() < 0 || !n.canConvertToLong()) {
      throw ApiException.badRequest("'" + name + "' must be a non-negative integer");
    }
    return n.asLong();
  }
}
