package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.McpAuth;
import io.taskmesh.schemas.TaskEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 33 item 2, the isolation matrix: MCP auth on/off x A2A auth on/off, callers anonymous / MCP
 * key / A2A key, tasks owned by the MCP key, the A2A key and nobody, on every REST and A2A route
 * that reads or changes a task. The rule ({@link TaskOwners}): a caller sees a task only when the
 * owners are equal, so an anonymous caller never sees an authenticated caller's task, whatever the
 * other protocol does; a refused caller (401) sees nothing either.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EdgeIsolationTest {
  static final String MCP_KEY = "iso-mcp-key";
  static final String A2A_KEY = "iso-a2a-key";
  static final String MCP_OWNER = McpAuth.STATIC_KEY_PRINCIPAL;
  static final String A2A_OWNER = "a2a:api-key";
  private static final Map<String, String> OWNERS = new HashMap<>();
  private static final AtomicInteger CASES = new AtomicInteger();

  static {
    OWNERS.put("mcp", MCP_OWNER);
    OWNERS.put("a2a", A2A_OWNER);
    OWNERS.put("anon", null);
  }

  enum Caller {
    ANONYMOUS(new String[0]),
    MCP_KEY_HOLDER(new String[] {"Authorization", "Bearer " + MCP_KEY}),
    A2A_KEY_HOLDER(new String[] {"X-API-Key", A2A_KEY});

    final String[] headers;

    Caller(String[] headers) {
      this.headers = headers;
    }
  }

  /** What a route answers a caller: refused (401), or the owner it acts as. */
  record Identity(boolean refused, String owner) {}

  @AfterAll
  static void report() {
    System.out.println("EdgeIsolationTest: " + CASES.get() + " cases checked");
  }

  @ParameterizedTest(name = "mcp auth {0}, a2a auth {1}")
  @CsvSource({"false,false", "false,true", "true,false", "true,true"})
  void aCallerSeesOnlyTasksOfItsOwnOwner(boolean mcpAuth, boolean a2aAuth) throws Exception {
    Map<String, String> env = new HashMap<>();
    if (mcpAuth) {
      env.put("SVC_MCP_API_KEY", MCP_KEY);
    }
    if (a2aAuth) {
      env.put("SVC_A2A_API_KEY", A2A_KEY);
    }
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API, env)) {
      for (Caller caller : Caller.values()) {
        Identity rest = identity(mcpAuth, caller == Caller.MCP_KEY_HOLDER, MCP_OWNER);
        Identity a2a = identity(a2aAuth, caller == Caller.A2A_KEY_HOLDER, A2A_OWNER);
        List<String> listedByRest = new ArrayList<>();
        List<String> listedByA2a = new ArrayList<>();
        for (Map.Entry<String, String> owner : OWNERS.entrySet()) {
          String id = gateway.seedTask(caller + "-" + owner.getKey(), owner.getValue());
          boolean restSees = !rest.refused() && Objects.equals(rest.owner(), owner.getValue());
          boolean a2aSees = !a2a.refused() && Objects.equals(a2a.owner(), owner.getValue());
          if (restSees) {
            listedByRest.add(id);
          }
          if (a2aSees) {
            listedByA2a.add(id);
          }
          String what = "mcp " + mcpAuth + " a2a " + a2aAuth + " " + caller + " on " + id;
          checkRest(gateway, caller, id, rest, restSees, what);
          checkA2a(gateway, caller, id, a2a, a2aSees, what);
          if (!restSees && !a2aSees) {
            assertThat(gateway.tasks.eventsOf(id))
                .as(what + ": an invisible task is never changed")
                .extracting(TaskEvent::type)
                .containsExactly(TaskEvent.CREATED);
          }
        }
        checkListings(gateway, caller, rest, a2a, listedByRest, listedByA2a);
      }
    }
  }

  static Identity identity(boolean authOn, boolean holdsTheKey, String keyOwner) {
    if (!authOn) {
      return new Identity(false, null);
    }
    return holdsTheKey ? new Identity(false, keyOwner) : new Identity(true, null);
  }

  private static void checkRest(
      EdgeGateway gateway, Caller caller, String id, Identity who, boolean sees, String what) {
    int expectedHidden = who.refused() ? 401 : 404;
    int get = gateway.get("/tasks/" + id, caller.headers).statusCode();
    int stream = gateway.status("GET", "/stream/" + id, null, caller.headers);
    int input =
        gateway.post("/tasks/" + id + "/input", "{\"text\":\"x\"}", caller.headers).statusCode();
    int cancel = gateway.post("/tasks/" + id + "/cancel", null, caller.headers).statusCode();
    if (sees) {
      assertThat(get).as(what + " GET /tasks/{id}").isEqualTo(200);
      assertThat(stream).as(what + " /stream/{id}").isEqualTo(200);
      assertThat(input).as(what + " input (not paused)").isEqualTo(409);
      assertThat(cancel).as(what + " cancel").isEqualTo(202);
    } else {
      assertThat(List.of(get, stream, input, cancel))
          .as(what + " REST")
          .containsOnly(expectedHidden);
    }
    CASES.addAndGet(4);
  }

  private static void checkA2a(
      EdgeGateway gateway, Caller caller, String id, Identity who, boolean sees, String what) {
    String idParam = "{\"id\":\"" + id + "\"}";
    List<String> calls =
        sees
            ? List.of(A2aCalls.call("tasks/get", idParam))
            : List.of(
                A2aCalls.call("tasks/get", idParam),
                A2aCalls.call("tasks/cancel", idParam),
                A2aCalls.call("tasks/resubscribe", idParam));
    for (String call : calls) {
      var r = gateway.post("/a2a/", call, withJsonAccept(caller.headers));
      CASES.incrementAndGet();
      if (who.refused()) {
        assertThat(r.statusCode()).as(what + " " + call).isEqualTo(401);
        continue;
      }
      JsonNode body = EdgeGateway.json(r);
      if (sees) {
        assertThat(body.path("result").path("id").asText()).as(what + " " + call).isEqualTo(id);
      } else {
        assertThat(body.path("error").path("code").asInt()).as(what + " " + call).isEqualTo(-32001);
      }
    }
  }

  private static void checkListings(
      EdgeGateway gateway,
      Caller caller,
      Identity rest,
      Identity a2a,
      List<String> listedByRest,
      List<String> listedByA2a) {
    String prefix = caller + "-";
    var restList = gateway.get("/tasks?limit=500", caller.headers);
    CASES.incrementAndGet();
    if (rest.refused()) {
      assertThat(restList.statusCode()).isEqualTo(401);
    } else {
      assertThat(ids(EdgeGateway.json(restList).get("tasks"), prefix))
          .as(caller + " GET /tasks")
          .containsExactlyInAnyOrderElementsOf(listedByRest);
    }
    var a2aList =
        gateway.post(
            "/a2a/",
            A2aCalls.call("tasks/list", "{\"pageSize\":100}"),
            withJsonAccept(caller.headers));
    CASES.incrementAndGet();
    if (a2a.refused()) {
      assertThat(a2aList.statusCode()).isEqualTo(401);
    } else {
      assertThat(ids(EdgeGateway.json(a2aList).get("result").get("tasks"), prefix))
          .as(caller + " A2A tasks/list")
          .containsExactlyInAnyOrderElementsOf(listedByA2a);
    }
  }

  /** The ids of this caller's seeded tasks in a listing (other callers' rows are checked there). */
  private static List<String> ids(JsonNode tasks, String prefix) {
    List<String> out = new ArrayList<>();
    tasks.forEach(
        t -> {
          String id = t.path("id").asText();
          if (id.startsWith(prefix)) {
            out.add(id);
          }
        });
    return out;
  }

  private static String[] withJsonAccept(String[] headers) {
    String[] out = new String[headers.length + 2];
    System.arraycopy(headers, 0, out, 0, headers.length);
    out[headers.length] = "Accept";
    out[headers.length + 1] = "application/json";
    return out;
  }
}
