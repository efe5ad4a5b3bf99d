package io.taskmesh.cli.remote;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Text tables for people: columns as wide as their widest cell, two spaces apart. */
public final class Tables {
  static final List<String> TASK_COLUMNS =
      List.of("ID", "FLOW", "STATUS", "PROGRESS", "ACTOR", "CREATED");

  private Tables() {}

  /** The {@code tasks} of a {@code GET /tasks} page as a table. */
  static String tasks(JsonNode page) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(TASK_COLUMNS);
    for (JsonNode t : page.path("tasks")) {
      rows.add(
          List.of(
              t.path("id").asText(),
              t.path("flow").asText("-"),
              t.path("status").asText(),
              String.format(Locale.ROOT, "%.0f%%", t.path("progress_percent").asDouble()),
              t.path("current_actor_name").asText("-"),
              t.path("created_at").asText("-")));
    }
    return render(rows);
  }

  /** Rows (the first one the header) as lines of columns padded to their widest cell. */
  public static String render(List<List<String>> rows) {
    int columns = rows.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        line.append(
            c == columns - 1
                ? row.get(c)
                : String.format(Locale.ROOT, "%-" + width[c] + "s  ", row.get(c)));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** A schema on one line. */
  static String compact(JsonNode schema) {
    return schema == null ? "(any)" : schema.toString();
  }
}
