package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.BadInputs;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.servicekit.ClientText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 33 item 7: every bad-input class of {@link BadInputs} sent to every gateway route that
 * takes a body (the routes of docs/api/openapi.json, testing mode = api + mesh), and bad ids and
 * query values to every plain GET. A case is clean when the answer is not a 5xx, its body names no
 * Java class, package, exception or stack frame ({@link ClientText}), and nothing was recorded (no
 * task event, no envelope). Prints the counts: cases tried, clean.
 */
@Timeout(120)
class EdgeBadInputSweepTest {
  private static int seeded;
  private static String task = "sweep-task-0";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** JSON-RPC envelopes around the bad params, per JSON-RPC route; "%s" = the body as is. */
  private static final Map<String, List<String>> WRAPPERS =
      Map.of(
          "POST /a2a/",
          List.of(
              "%s",
              rpc("message/send"),
              rpc("message/stream"),
              rpc("tasks/get"),
              rpc("tasks/cancel"),
              rpc("tasks/pushNotificationConfig/set")),
          "POST /a2a/v1",
          List.of("%s", rpc("SendMessage"), rpc("GetTask"), rpc("CancelTask"), rpc("ListTasks")),
          "POST /mcp",
          List.of("%s", rpc("tools/call"), rpc("initialize")));

  /**
   * Cases that are valid requests on a route: the two cancel routes take an optional body whose
   * fields they do not read, so a JSON object of unknown fields (here big numbers) cancels, as it
   * should; a skill-only flow takes any JSON object as its input. Their answers are still checked
   * for 5xx and leaks.
   */
  private static final Map<String, Set<String>> VALID =
      Map.of(
          "POST /tasks/{id}/cancel", Set.of("huge numbers"),
          "POST /a2a/v1/tasks/{idAction}", Set.of("huge numbers"),
          // a skill's input is any JSON object: an object of odd fields starts the flow, as it
          // should
          "POST /ui/flows/{name}/start",
              Set.of("wrong types", "wrong types 2", "huge numbers", "escaped NUL"));

  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.TESTING);
  }

  @AfterAll
  static void stop() throws IOException {
    gateway.close();
  }

  private static String rpc(String method) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":%s}";
  }

  /**
   * The body routes: those the document gives a request body, and the bodies clients send anyway.
   */
  static Set<String> bodyRoutes() {
    Set<String> routes = new TreeSet<>();
    for (String op : ApiDocument.operationsServedBy("gateway:testing")) {
      if (!op.startsWith("GET ")) {
        routes.add(op);
      }
    }
    return routes;
  }

  @Test
  void everyBadBodyOnEveryRouteAnswersCleanlyAndChangesNothing() {
    Tally tally = new Tally();
    for (String route : bodyRoutes()) {
      String method = route.substring(0, route.indexOf(' '));
      String path = concrete(route.substring(route.indexOf(' ') + 1));
      for (String wrapper : WRAPPERS.getOrDefault(route, List.of("%s"))) {
        for (BadInputs.Case c : BadInputs.bodies(wrapper)) {
          reseed();
          String before = gateway.recorded();
          HttpResponse<String> r = send(method, path, c.body(), c.contentType());
          String after = gateway.recorded();
          boolean valid = VALID.getOrDefault(route, Set.of()).contains(c.name());
          tally.check(
              route + " [" + wrapperName(wrapper) + "] " + c, r, valid || before.equals(after));
        }
      }
    }
    tally.report("gateway body routes");
    assertThat(tally.failures).isEmpty();
    assertThat(tally.tried).isGreaterThan(500);
  }

  @Test
  void badIdsAndQueryValuesOnEveryGetAnswerCleanly() {
    Tally tally = new Tally();
    List<String> badIds =
        List.of("%00", "a%00b", "%FF", "a%FFb", "%C0%AF", "x".repeat(4000), "%2e%2e%2f");
    String badQuery = "?limit=%FF&offset=1e999&status=%00&flow=%C0&historyLength=x&owner=%00";
    for (String op : ApiDocument.operationsServedBy("gateway:testing")) {
      if (!op.startsWith("GET ") || endless(op)) {
        continue;
      }
      String template = op.substring(4);
      List<String> paths = new ArrayList<>();
      if (template.contains("{")) {
        for (String id : badIds) {
          paths.add(template.replaceAll("\\{[^}]+}", id));
        }
      }
      paths.add(concrete(template) + badQuery);
      for (String path : paths) {
        String before = gateway.recorded();
        HttpResponse<String> r = send("GET", path, null, null);
        tally.check(op + " " + abbreviated(path), r, before.equals(gateway.recorded()));
      }
    }
    tally.report("gateway GET routes");
    assertThat(tally.failures).isEmpty();
    assertThat(tally.tried).isGreaterThan(30);
  }

  /** Issue 33 item 8: a cancel whose body is not JSON was answered 200 and cancelled. */
  @Test
  void aGarbledCancelBodyIsRefusedAndCancelsNothing() {
    String id = gateway.seedTask("cancel-body", null);
    for (String body : List.of("{bad", "[1]", "{\"metadata\":\"m\"}")) {
      HttpResponse<String> r =
          send("POST", "/a2a/v1/tasks/" + id + ":cancel", body.getBytes(), "application/json");
      assertThat(r.statusCode()).as(body).isEqualTo(400);
      assertThat(gateway.tasks.get(id).orElseThrow().isFinal()).as(body).isFalse();
    }
    HttpResponse<String> ok =
        send("POST", "/a2a/v1/tasks/" + id + ":cancel", "{}".getBytes(), "application/json");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).contains("TASK_STATE_CANCELED");
  }

  /** SSE routes never end on their own; the dashboard's mesh routes need a mesh-api. */
  private static boolean endless(String op) {
    return op.contains("stream") || op.startsWith("GET /mcp") || op.startsWith("GET /ui/mesh");
  }

  private static String abbreviated(String path) {
    return path.length() > 80 ? path.substring(0, 80) + "..." : path;
  }

  private static String wrapperName(String wrapper) {
    int at = wrapper.indexOf("\"method\":\"");
    return at < 0 ? "raw" : wrapper.substring(at + 10, wrapper.indexOf('"', at + 10));
  }

  /** The sweep task is running again before each case, so a cancel would show. */
  private static void reseed() {
    if (gateway.tasks.get(task).map(t -> t.isFinal()).orElse(true)) {
      task = "sweep-task-" + ++seeded;
      gateway.seedTask(task, null);
    }
  }

  private static String concrete(String template) {
    return template
        .replace("{idAction}", task + ":cancel")
        .replace("{configId}", "cfg")
        .replace("{file}", "app.js")
        .replace("{name}", "skill-only")
        .replace("{id}", task);
  }

  private static HttpResponse<String> send(String method, String path, byte[] body, String type) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(gateway.url(path)))
            .timeout(Duration.ofSeconds(10))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (type != null) {
      b.header("Content-Type", type);
    }
    if (path.startsWith("/a2a/v1")) {
      b.header("A2A-Version", "1.0");
    }
    b.header("Accept", "application/json, text/event-stream");
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError(method + " " + path + ": no answer", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Cases tried and clean, with what was wrong with each unclean one. */
  static final class Tally {
    int tried;
    int clean;
    final List<String> failures = new ArrayList<>();

    void check(String what, HttpResponse<String> r, boolean unchanged) {
      tried++;
      String body = r.body() == null ? "" : r.body();
      // the dashboard's own files are code, not answers
      String type = r.headers().firstValue("Content-Type").orElse("");
      boolean file = type.contains("javascript") || type.contains("css") || type.contains("html");
      var leak = file ? java.util.Optional.<String>empty() : ClientText.leak(body);
      List<String> wrong = new ArrayList<>();
      if (r.statusCode() >= 500) {
        wrong.add("status " + r.statusCode());
      }
      leak.ifPresent(l -> wrong.add("names '" + l + "'"));
      if (!unchanged) {
        wrong.add("changed state (" + r.statusCode() + ")");
      }
      if (wrong.isEmpty()) {
        clean++;
      } else {
        failures.add(what + ": " + wrong + " " + abbreviated(body.replace('\n', ' ')));
      }
    }

    void report(String what) {
      System.out.printf("%s: %d cases tried, %d clean%n", what, tried, clean);
      failures.stream().limit(60).forEach(f -> System.out.println("  " + f));
    }
  }
}
