package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real HTTP server on 127.0.0.1 that records every POST /mesh/{id}/{kind} body, answering 200,
 * and every child of a POST /tasks registration as kind {@code registered} (201), or answers that
 * 503 while {@link #refuseRegistrations} is set; {@code GET /mesh/{id}/active} answers 410 for the
 * tasks in {@link #ended}.
 */
final class GatewayRecorder implements AutoCloseable {
  record Call(String id, String kind, JsonNode body) {}

  private final HttpServer server;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  volatile boolean refuseRegistrations;

  /** Tasks whose {@code GET /mesh/{id}/active} answers 410 (canceled, say); the rest answer 200. */
  final Set<String> ended = ConcurrentHashMap.newKeySet();

  GatewayRecorder() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/mesh/",
        ex -> {
          String[] parts = ex.getRequestURI().getPath().split("/"); // "", mesh, id, kind
          if (ex.getRequestMethod().equals("GET") && parts.length == 4) { // GET /mesh/{id}/active
            boolean active = !ended.contains(parts[2]);
            ex.sendResponseHeaders(active ? 200 : 410, -1);
            ex.close();
            return;
          }
          byte[] body = ex.getRequestBody().readAllBytes();
          if (parts.length == 4) {
            calls.add(new Call(parts[2], parts[3], Json.read(body, JsonNode.class)));
          }
          byte[] ok = "{\"status\":\"ok\"}".getBytes();
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, ok.length);
          ex.getResponseBody().write(ok);
          ex.close();
        });
    server.createContext(
        "/tasks",
        ex -> {
          JsonNode body = Json.read(ex.getRequestBody().readAllBytes(), JsonNode.class);
          int status = refuseRegistrations ? 503 : 201;
          if (!refuseRegistrations) {
            body.forEach(
                child -> calls.add(new Call(child.path("id").asText(), "registered", child)));
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<Call> calls(String id, String kind) {
    return calls.stream().filter(c -> c.id().equals(id) && c.kind().equals(kind)).toList();
  }

  List<Call> calls(String kind) {
    return calls.stream().filter(c -> c.kind().equals(kind)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
