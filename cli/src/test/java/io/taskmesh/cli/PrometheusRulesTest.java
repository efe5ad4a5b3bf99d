package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's files against Prometheus itself: compose/prometheus/rules.yml passes its unit
 * tests (rules_test.yml), and every query of the Grafana dashboard compose/grafana/
 * taskmesh-dashboard.json parses and answers the series its test file expects. Runs Prometheus'
 * promtool, found or fetched by scripts/ensure-promtool.sh (which says what to install when it
 * cannot).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PrometheusRulesTest {
  private static final Path ROOT =
      Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
  private static final Path DASHBOARD = ROOT.resolve("compose/grafana/taskmesh-dashboard.json");
  private static final Path DASHBOARD_TEST =
      ROOT.resolve("compose/grafana/taskmesh-dashboard.test.yml");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern LABEL_VALUES =
      Pattern.compile("^label_values\\(\\s*([^,]+?)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)$");

  private record Run(int exit, String output) {}

  private static Run run(List<String> command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out);
  }

  private static String promtool() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(ROOT.resolve("scripts/ensure-promtool.sh").toString())
            .directory(ROOT.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.waitFor() != 0 || out.isEmpty()) {
      fail(
          "no promtool: scripts/ensure-promtool.sh said why above (install Debian's prometheus package)");
    }
    String[] lines = out.split("\n");
    return lines[lines.length - 1];
  }

  @Test
  void theRulesAreValidAndPassTheirUnitTests() throws Exception {
    String promtool = promtool();
    Run check = run(List.of(promtool, "check", "rules", "compose/prometheus/rules.yml"));
    assertThat(check.exit()).as(check.output()).isZero();
    Run test = run(List.of(promtool, "test", "rules", "compose/prometheus/rules_test.yml"));
    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  void everyDashboardQueryParsesAndAnswersTheExpectedSeries(@TempDir Path dir) throws Exception {
    Map<String, String> queries = dashboardQueries();
    JsonNode spec = YAML.readTree(DASHBOARD_TEST.toFile());
    Set<String> expected = new TreeSet<>();
    spec.get("queries").fieldNames().forEachRemaining(expected::add);
    assertThat(new TreeSet<>(queries.keySet()))
        .as(
            "every dashboard query has expected series in %s, and no entry there is stale",
            ROOT.relativize(DASHBOARD_TEST))
        .isEqualTo(expected);

    List<Map.Entry<String, String>> variables = new ArrayList<>();
    spec.get("variables")
        .fields()
        .forEachRemaining(e -> variables.add(Map.entry(e.getKey(), e.getValue().asText())));
    variables.sort(
        Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed());

    ObjectNode group = JSON.createObjectNode();
    group.put("interval", spec.get("interval").asText());
    group.set("input_series", spec.get("input_series"));
    ArrayNode tests = group.putArray("promql_expr_test");
    queries.forEach(
        (key, expr) -> {
          String promql = expr;
          for (Map.Entry<String, String> v : variables) {
            promql = promql.replace(v.getKey(), v.getValue());
          }
          assertThat(promql)
              .as("%s: a Grafana variable without a value in the test file", key)
              .doesNotContain("$");
          ObjectNode t = tests.addObject();
          t.put("expr", promql);
          t.put("eval_time", spec.get("eval_time").asText());
          t.set("exp_samples", spec.get("queries").get(key));
        });
    ObjectNode file = JSON.createObjectNode();
    file.putArray("rule_files");
    file.put("evaluation_interval", spec.get("interval").asText());
    file.putArray("tests").add(group);
    Path generated = dir.resolve("dashboard_test.yml"); // JSON is YAML
    Files.writeString(generated, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(file));

    Run test = run(List.of(promtool(), "test", "rules", generated.toString()));
    assertThat(test.exit()).as("%s%n%s", test.output(), Files.readString(generated)).isZero();
  }

  @Test
  void theDashboardShowsWhatAnOperatorAsksFirst() throws IOException {
    String exprs = String.join("\n", dashboardQueries().values());
    assertThat(exprs)
        .contains(
            "taskmesh_tasks_finished_total", // tasks by flow and status
            "taskmesh_task_duration_seconds_bucket", // latency
            "taskmesh_actor_envelopes_total", // per-actor throughput, DLQ
            "taskmesh_actor_consumer_lag_records",
            "taskmesh_sse_clients");
    // every taskmesh metric it queries is one the services document (docs/operations.md)
    String docs = Files.readString(ROOT.resolve("docs/operations.md"));
    Matcher m = Pattern.compile("taskmesh_[a-z_]+").matcher(exprs);
    while (m.find()) {
      String metric = m.group().replaceAll("_(bucket|count|sum)$", "");
      assertThat(docs).as("docs/operations.md names %s", metric).contains("`" + metric);
    }
  }

  /** Each panel target's expr by "title / refId", each label_values() variable as PromQL. */
  private static Map<String, String> dashboardQueries() throws IOException {
    JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.put(
            panel.get("title").asText() + " / " + target.get("refId").asText(),
            target.get("expr").asText());
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if (!"query".equals(variable.path("type").asText())) {
        continue;
      }
      String q = variable.path("query").path("query").asText(variable.path("query").asText());
      Matcher lv = LABEL_VALUES.matcher(q.trim());
      assertThat(lv.matches())
          .as(
              "variable %s: only label_values(metric, label) is tested: %s",
              variable.get("name"), q)
          .isTrue();
      out.put(
          "variable " + variable.get("name").asText(),
          "group by (" + lv.group(2) + ") (" + lv.group(1) + ")");
    }
    return out;
  }
}
