package io.taskmesh.gateway;

import static io.taskmesh.gateway.EdgeIsolationTest.A2A_OWNER;
import static io.taskmesh.gateway.EdgeIsolationTest.MCP_OWNER;
import static io.taskmesh.gateway.EdgeIsolationTest.identity;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.EdgeIsolationTest.Caller;
import io.taskmesh.gateway.EdgeIsolationTest.Identity;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskEvent;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 33 item 2, the rest of the isolation matrix ({@link EdgeIsolationTest} holds REST and A2A
 * 0.3): MCP's task methods and task resources in both MCP eras (sessions, and the sessionless
 * 2026-07-28 revision), A2A 1.0 on JSON-RPC and on HTTP+JSON, and the live task list {@code GET
 * /tasks/stream}. The same auth settings, callers and owners; a task a caller may not see answers
 * exactly what an id that does not exist answers, and is never changed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EdgeIsolationProtocolsTest {
  private static final String ACCEPT_BOTH = "application/json, text/event-stream";
  private static final String[] V1 = {"A2A-Version", "1.0", "Accept", "application/json"};
  private static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"iso\",\"version\":\"1\"}}}";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final AtomicInteger CASES = new AtomicInteger();

  @AfterAll
  static void report() {
    System.out.println("EdgeIsolationProtocolsTest: " + CASES.get() + " cases checked");
  }

  @ParameterizedTest(name = "mcp auth {0}, a2a auth {1}")
  @CsvSource({"false,false", "false,true", "true,false", "true,true"})
  void mcpA2a10AndTheLiveListShowACallerOnlyTasksOfItsOwnOwner(boolean mcpAuth, boolean a2aAuth)
      throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    if (mcpAuth) {
      env.put("SVC_MCP_API_KEY", EdgeIsolationTest.MCP_KEY);
    }
    if (a2aAuth) {
      env.put("SVC_A2A_API_KEY", EdgeIsolationTest.A2A_KEY);
    }
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API, env)) {
      for (Caller caller : Caller.values()) {
        Identity mcp = identity(mcpAuth, caller == Caller.MCP_KEY_HOLDER, MCP_OWNER);
        Identity a2a = identity(a2aAuth, caller == Caller.A2A_KEY_HOLDER, A2A_OWNER);
        String what = "mcp " + mcpAuth + " a2a " + a2aAuth + " " + caller;
        Map<String, Boolean> mcpSees = new LinkedHashMap<>();
        Map<String, Boolean> a2aSees = new LinkedHashMap<>();
        Map<String, String> owners = new LinkedHashMap<>();
        owners.put("mcp", MCP_OWNER);
        owners.put("a2a", A2A_OWNER);
        owners.put("anon", null);
        for (Map.Entry<String, String> owner : owners.entrySet()) {
          String id = gateway.seedTask("p-" + caller + "-" + owner.getKey(), owner.getValue());
          mcpSees.put(id, !mcp.refused() && Objects.equals(mcp.owner(), owner.getValue()));
          a2aSees.put(id, !a2a.refused() && Objects.equals(a2a.owner(), owner.getValue()));
        }
        String session = mcpSession(gateway, caller, mcp, what);
        for (String id : mcpSees.keySet()) {
          String on = what + " on " + id;
          checkMcpSession(gateway, caller, session, id, mcp, mcpSees.get(id), on);
          checkMcpSessionless(gateway, caller, id, mcp, mcpSees.get(id), on);
          checkA2a10(gateway, caller, id, a2a, a2aSees.get(id), on);
          if (!mcpSees.get(id) && !a2aSees.get(id)) {
            assertThat(gateway.tasks.eventsOf(id))
                .as(on + ": an invisible task is never changed")
                .extracting(TaskEvent::type)
                .containsExactly(TaskEvent.CREATED);
          }
        }
        checkLists(gateway, caller, session, mcp, a2a, mcpSees, a2aSees, what);
        checkLiveList(gateway, caller, mcp, mcpSees, what);
      }
    }
  }

  private static String mcpSession(EdgeGateway gateway, Caller caller, Identity mcp, String what) {
    HttpResponse<String> r = gateway.post("/mcp", INIT, with(caller, "Accept", ACCEPT_BOTH));
    CASES.incrementAndGet();
    if (mcp.refused()) {
      assertThat(r.statusCode()).as(what + " MCP initialize").isEqualTo(401);
      return null;
    }
    assertThat(r.statusCode()).as(what + " MCP initialize: " + r.body()).isEqualTo(200);
    return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  private static void checkMcpSession(
      EdgeGateway gateway,
      Caller caller,
      String session,
      String id,
      Identity mcp,
      boolean sees,
      String what) {
    String uri = "taskmesh://tasks/" + id;
    List<String[]> calls = new ArrayList<>();
    calls.add(new String[] {"tasks/get", "{\"taskId\":\"" + id + "\"}"});
    calls.add(new String[] {"resources/read", "{\"uri\":\"" + uri + "\"}"});
    if (!sees) {
      // on a visible task these wait for its end or change it: only what must be refused
      calls.add(new String[] {"tasks/result", "{\"taskId\":\"" + id + "\"}"});
      calls.add(new String[] {"resources/subscribe", "{\"uri\":\"" + uri + "\"}"});
      calls.add(new String[] {"tasks/cancel", "{\"taskId\":\"" + id + "\"}"});
    }
    for (String[] call : calls) {
      CASES.incrementAndGet();
      if (mcp.refused()) {
        HttpResponse<String> r = mcpCall(gateway, caller, "no-session", call[0], call[1]);
        assertThat(r.statusCode()).as(what + " " + call[0]).isEqualTo(401);
        continue;
      }
      JsonNode answer = message(mcpCall(gateway, caller, session, call[0], call[1]));
      if (sees) {
        assertThat(Json.write(answer.path("result"))).as(what + " " + call[0]).contains(id);
      } else {
        String unknown = call[1].replace(id, "no-such-" + id);
        JsonNode notFound = message(mcpCall(gateway, caller, session, call[0], unknown));
        assertSameError(what + " MCP " + call[0], answer, notFound, id);
      }
    }
  }

  private static void checkMcpSessionless(
      EdgeGateway gateway, Caller caller, String id, Identity mcp, boolean sees, String what) {
    String uri = "taskmesh://tasks/" + id;
    List<String[]> calls = new ArrayList<>();
    calls.add(new String[] {"tasks/get", "taskId", id});
    calls.add(new String[] {"resources/read", "uri", uri});
    if (!sees) {
      calls.add(new String[] {"tasks/cancel", "taskId", id});
    }
    for (String[] call : calls) {
      CASES.incrementAndGet();
      HttpResponse<String> r = sessionless(gateway, caller, call[0], call[1], call[2]);
      if (mcp.refused()) {
        assertThat(r.statusCode()).as(what + " 2026 " + call[0]).isEqualTo(401);
        continue;
      }
      JsonNode answer = message(r);
      if (sees) {
        assertThat(Json.write(answer.path("result"))).as(what + " 2026 " + call[0]).contains(id);
      } else {
        String other = call[2].replace(id, "no-such-" + id);
        JsonNode notFound = message(sessionless(gateway, caller, call[0], call[1], other));
        assertSameError(what + " 2026 " + call[0], answer, notFound, id);
      }
    }
  }

  private static void checkA2a10(
      EdgeGateway gateway, Caller caller, String id, Identity a2a, boolean sees, String what) {
    String param = "{\"id\":\"" + id + "\"}";
    List<String[]> rpc = new ArrayList<>();
    rpc.add(new String[] {"GetTask", param});
    if (!sees) {
      rpc.add(new String[] {"CancelTask", param});
      rpc.add(new String[] {"SubscribeToTask", param});
    }
    for (String[] call : rpc) {
      CASES.incrementAndGet();
      HttpResponse<String> r =
          gateway.post("/a2a/v1", A2aCalls.call(call[0], call[1]), with(caller, V1));
      if (a2a.refused()) {
        assertThat(r.statusCode()).as(what + " 1.0 " + call[0]).isEqualTo(401);
        continue;
      }
      JsonNode answer = message(r);
      if (sees) {
        assertThat(answer.path("result").path("id").asText())
            .as(what + " " + call[0])
            .isEqualTo(id);
      } else {
        JsonNode notFound =
            message(
                gateway.post(
                    "/a2a/v1",
                    A2aCalls.call(call[0], call[1].replace(id, "no-such-" + id)),
                    with(caller, V1)));
        assertSameError(what + " 1.0 " + call[0], answer, notFound, id);
      }
    }
    List<String[]> rest = new ArrayList<>();
    rest.add(new String[] {"GET", "/a2a/v1/tasks/" + id});
    if (!sees) {
      rest.add(new String[] {"POST", "/a2a/v1/tasks/" + id + ":cancel"});
      rest.add(new String[] {"POST", "/a2a/v1/tasks/" + id + ":subscribe"});
    }
    for (String[] call : rest) {
      CASES.incrementAndGet();
      HttpResponse<String> r = send(gateway, call[0], call[1], with(caller, V1));
      if (a2a.refused()) {
        assertThat(r.statusCode()).as(what + " " + call[1]).isEqualTo(401);
      } else if (sees) {
        assertThat(r.statusCode()).as(what + " " + call[1]).isEqualTo(200);
        assertThat(EdgeGateway.json(r).path("id").asText()).isEqualTo(id);
      } else {
        HttpResponse<String> unknown =
            send(gateway, call[0], call[1].replace(id, "no-such-" + id), with(caller, V1));
        assertThat(r.statusCode()).as(what + " " + call[1]).isEqualTo(unknown.statusCode());
        assertThat(r.body().replace(id, "ID"))
            .as(what + " " + call[1])
            .isEqualTo(unknown.body().replace("no-such-" + id, "ID"));
      }
    }
  }

  private static void checkLists(
      EdgeGateway gateway,
      Caller caller,
      String session,
      Identity mcp,
      Identity a2a,
      Map<String, Boolean> mcpSees,
      Map<String, Boolean> a2aSees,
      String what) {
    String prefix = "p-" + caller + "-";
    if (!mcp.refused()) {
      CASES.addAndGet(2);
      JsonNode tasks = message(mcpCall(gateway, caller, session, "tasks/list", "{}"));
      assertThat(ids(tasks.path("result").path("tasks"), "taskId", prefix))
          .as(what + " MCP tasks/list")
          .containsExactlyInAnyOrderElementsOf(visible(mcpSees));
      JsonNode resources = message(mcpCall(gateway, caller, session, "resources/list", "{}"));
      List<String> listed = new ArrayList<>();
      resources
          .path("result")
          .path("resources")
          .forEach(r -> listed.add(r.path("uri").asText().replace("taskmesh://tasks/", "")));
      assertThat(listed.stream().filter(i -> i.startsWith(prefix)).toList())
          .as(what + " MCP resources/list")
          .containsExactlyInAnyOrderElementsOf(visible(mcpSees));
    }
    CASES.addAndGet(2);
    HttpResponse<String> rest = gateway.get("/a2a/v1/tasks?pageSize=100", with(caller, V1));
    HttpResponse<String> rpc =
        gateway.post("/a2a/v1", A2aCalls.call("ListTasks", "{\"pageSize\":100}"), with(caller, V1));
    if (a2a.refused()) {
      assertThat(List.of(rest.statusCode(), rpc.statusCode())).containsOnly(401);
      return;
    }
    assertThat(ids(EdgeGateway.json(rest).path("tasks"), "id", prefix))
        .as(what + " A2A 1.0 GET /tasks")
        .containsExactlyInAnyOrderElementsOf(visible(a2aSees));
    assertThat(ids(message(rpc).path("result").path("tasks"), "id", prefix))
        .as(what + " A2A 1.0 ListTasks")
        .containsExactlyInAnyOrderElementsOf(visible(a2aSees));
  }

  /**
   * {@code GET /tasks/stream} as this caller: an update of each of its three tasks, the visible one
   * last; the dashboard's owner checks run in order on one thread, so by the time the visible
   * update is written, any other would have been.
   */
  private static void checkLiveList(
      EdgeGateway gateway, Caller caller, Identity mcp, Map<String, Boolean> sees, String what)
      throws Exception {
    CASES.incrementAndGet();
    HttpRequest.Builder req =
        gateway.request("GET", "/tasks/stream", null).header("Accept", "text/event-stream");
    if (caller.headers.length > 0) {
      req.headers(caller.headers);
    }
    HttpResponse<Stream<String>> r = HTTP.send(req.build(), HttpResponse.BodyHandlers.ofLines());
    try (Stream<String> lines = r.body()) {
      if (mcp.refused()) {
        assertThat(r.statusCode()).as(what + " /tasks/stream").isEqualTo(401);
        return;
      }
      assertThat(r.statusCode()).as(what + " /tasks/stream").isEqualTo(200);
      Iterator<String> it = lines.iterator();
      assertThat(it.next()).as("greeting").startsWith(":");
      String shown = visible(sees).get(0);
      List<String> order = new ArrayList<>(sees.keySet());
      order.remove(shown);
      order.add(shown);
      order.forEach(id -> gateway.tasks.append(TaskEvent.canceled(id, "live list check")));
      List<String> seen =
          CompletableFuture.supplyAsync(
                  () -> {
                    List<String> data = new ArrayList<>();
                    while (it.hasNext()) {
                      String line = it.next();
                      if (line.startsWith("data:")) {
                        data.add(line);
                        if (line.contains(shown)) {
                          return data;
                        }
                      }
                    }
                    return data;
                  })
              .get(30, TimeUnit.SECONDS);
      assertThat(seen).as(what + " /tasks/stream").hasSize(1);
      assertThat(seen.get(0)).contains(shown);
    }
  }

  private static List<String> visible(Map<String, Boolean> sees) {
    return sees.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
  }

  private static List<String> ids(JsonNode tasks, String field, String prefix) {
    List<String> out = new ArrayList<>();
    tasks.forEach(
        t -> {
          String id = t.path(field).asText();
          if (id.startsWith(prefix)) {
            out.add(id);
          }
        });
    return out;
  }

  /** A hidden task answers the error of an id that does not exist, word for word. */
  private static void assertSameError(String what, JsonNode hidden, JsonNode unknown, String id) {
    assertThat(hidden.has("error")).as(what + ": " + hidden).isTrue();
    assertThat(hidden.path("error").path("code").asInt())
        .as(what)
        .isEqualTo(unknown.path("error").path("code").asInt());
    assertThat(hidden.path("error").path("message").asText().replace(id, "ID"))
        .as(what)
        .isEqualTo(unknown.path("error").path("message").asText().replace("no-such-" + id, "ID"));
  }

  private static HttpResponse<String> mcpCall(
      EdgeGateway gateway, Caller caller, String session, String method, String params) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"" + method + "\",\"params\":" + params + "}";
    return gateway.post(
        "/mcp", body, with(caller, "Accept", ACCEPT_BOTH, "Mcp-Session-Id", session));
  }

  private static HttpResponse<String> sessionless(
      EdgeGateway gateway, Caller caller, String method, String field, String value) {
    ObjectNode params = Json.MAPPER.createObjectNode().put(field, value);
    EdgeMcpStatelessTest.Call call = EdgeMcpStatelessTest.Call.of(method, params, value);
    return call.send(gateway, 9, caller.headers);
  }

  private static HttpResponse<String> send(
      EdgeGateway gateway, String method, String path, String[] headers) {
    return "GET".equals(method) ? gateway.get(path, headers) : gateway.post(path, "", headers);
  }

  /** The JSON-RPC message of a response, sent as JSON or as the data of one SSE event. */
  private static JsonNode message(HttpResponse<String> r) {
    String body = r.body();
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      body =
          body.lines()
              .filter(l -> l.startsWith("data:"))
              .map(l -> l.substring(5).trim())
              .filter(l -> l.contains("\"jsonrpc\""))
              .findFirst()
              .orElse("{}");
    }
    try {
      return Json.MAPPER.readTree(body);
    } catch (IOException e) {
      throw new AssertionError("not JSON (" + r.statusCode() + "): " + body, e);
    }
  }

  private static String[] with(Caller caller, String... headers) {
    String[] out = new String[caller.headers.length + headers.length];
    System.arraycopy(caller.headers, 0, out, 0, caller.headers.length);
    System.arraycopy(headers, 0, out, caller.headers.length, headers.length);
    return out;
  }
}
