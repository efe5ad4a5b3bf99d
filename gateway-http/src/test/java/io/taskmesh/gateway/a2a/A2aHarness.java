package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.gateway.Gateway;
import io.taskmesh.gateway.TaskHttp;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.unixhttp.SseParser;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A gateway with A2A auth (API key and JWT against a JWKS served here), plus HTTP/SSE helpers. */
final class A2aHarness implements AutoCloseable {
  final String namespace = "a2a" + UUID.randomUUID().toString().substring(0, 8);
  static final String API_KEY = "a2a-secret-key";
  static final String ISSUER = "https://issuer.test";
  static final String AUDIENCE = "taskmesh-a2a";
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final Gateway gateway;
  final String base;
  final HttpServer jwks;
  volatile RSAKey key;
  volatile JWKSet served;

  A2aHarness(Path dir, String flowsYaml, Map<String, String> extraEnv) throws Exception {
    key = new RSAKeyGenerator(2048).keyID("k1").generate();
    served = new JWKSet(key.toPublicJWK());
    jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    jwks.createContext(
        "/jwks.json",
        ex -> {
          byte[] body = served.toString(true).getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    jwks.start();
    Path flows = dir.resolve("flows.yaml");
    java.nio.file.Files.writeString(flows, flowsYaml);
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", LocalKafka.shared().bootstrapServers());
    env.put("SVC_PORT", "0");
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_CONFIG_PATH", flows.toString());
    env.put("SVC_CONFIG_POLL_INTERVAL", "200ms");
    env.put("SVC_STATE_DIR", dir.resolve("state").toString());
    env.put("SVC_STREAMS_APPLICATION_ID", "a2a-it-" + UUID.randomUUID());
    env.put("SVC_NAMESPACE", namespace);
    env.put("SVC_A2A_API_KEY", API_KEY);
    env.put(
        "SVC_A2A_JWT_JWKS_URL", "http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks.json");
    env.put("SVC_A2A_JWT_ISSUER", ISSUER);
    env.put("SVC_A2A_JWT_AUDIENCE", AUDIENCE);
    env.put("SVC_A2A_PUSH_ALLOW_PRIVATE", "true");
    env.putAll(extraEnv);
    gateway = TaskHttp.start(env);
    base = "http://127.0.0.1:" + gateway.port();
  }

  String token(String sub) throws Exception {
    return token(sub, ISSUER, AUDIENCE, new Date(System.currentTimeMillis() + 600_000), key);
  }

  static String token(String sub, String iss, String aud, Date exp, RSAKey signer)
      throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(signer.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            new JWTClaimsSet.Builder()
                .subject(sub)
                .issuer(iss)
                .audience(aud)
                .expirationTime(exp)
                .issueTime(new Date())
                .build());
    jwt.sign(new RSASSASigner(signer));
    return jwt.serialize();
  }

  /** Headers of a request: alternating names and values. */
  HttpResponse<String> rpc(String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + "/a2a/"))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.setHeader(headers[i], headers[i + 1]);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  JsonNode call(String method, String params, String... headers) throws Exception {
    HttpResponse<String> r =
        rpc(
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\""
                + method
                + "\",\"params\":"
                + params
                + "}",
            headers);
    if (r.statusCode() != 200) {
      throw new AssertionError(method + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return Json.MAPPER.readTree(r.body());
  }

  HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  void finish(String id, String result) throws Exception {
    post(
        "/mesh/" + id + "/final",
        "{\"id\":\"" + id + "\",\"status\":\"succeeded\",\"result\":" + result + "}");
  }

  void progress(String id, String curr, String state) throws Exception {
    post(
        "/mesh/" + id + "/progress",
        "{\"prev\":[],\"curr\":\"" + curr + "\",\"next\":[],\"status\":\"" + state + "\"}");
  }

  /** Waits until {@code tasks/get} (as {@code headers}) shows the A2A state. */
  JsonNode awaitState(String id, String state, String... headers) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      JsonNode r = call("tasks/get", "{\"id\":\"" + id + "\"}", headers);
      if (r.has("result") && r.get("result").get("status").get("state").asText().equals(state)) {
        return r.get("result");
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("task " + id + " not " + state + ": " + r);
      }
      Thread.sleep(20); // polling a read model from outside the process
    }
  }

  /** An SSE response of a POST: every event's data (a JSON-RPC response), parsed, as it arrives. */
  static final class Stream implements AutoCloseable {
    final HttpResponse<InputStream> response;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final ByteArrayOutputStream wire = new ByteArrayOutputStream();
    private static final String END = "\u0000end";

    Stream(HttpResponse<InputStream> response) {
      this.response = response;
      Threads.startDaemon(
          "a2a-test-sse",
          () -> {
            try (InputStream body = new BufferedInputStream(new Recording(response.body(), wire))) {
              SseParser parser = new SseParser(body, false);
              for (SseParser.Event e = parser.next(); e != null; e = parser.next()) {
                lines.add(e.data());
              }
            } catch (IOException ignored) {
              // closed
            } finally {
              lines.add(END);
            }
          });
    }

    /** The next JSON-RPC response, or null when the stream ended. */
    JsonNode next() throws Exception {
      String s = lines.poll(30, TimeUnit.SECONDS);
      if (s == null) {
        throw new AssertionError("no SSE event within 30 s");
      }
      if (s.equals(END)) {
        lines.add(END);
        return null;
      }
      return Json.MAPPER.readTree(s);
    }

    /** Every remaining response until the server closes the stream. */
    List<JsonNode> rest() throws Exception {
      List<JsonNode> out = new ArrayList<>();
      for (JsonNode n = next(); n != null; n = next()) {
        out.add(n);
      }
      return out;
    }

    /** The lines received so far as they were on the wire (to check the A2A 0.3 form). */
    List<String> rawLines() {
      synchronized (wire) {
        return wire.toString(StandardCharsets.UTF_8).lines().toList();
      }
    }

    @Override
    public void close() throws Exception {
      response.body().close();
    }
  }

  /** Keeps a copy of every byte read, for {@link Stream#rawLines}. */
  private static final class Recording extends FilterInputStream {
    private final ByteArrayOutputStream copy;

    Recording(InputStream in, ByteArrayOutputStream copy) {
      super(in);
      this.copy = copy;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        synchronized (copy) {
          copy.write(b);
        }
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        synchronized (copy) {
          copy.write(b, off, n);
        }
      }
      return n;
    }
  }

  Stream stream(String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + "/a2a/"))
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.setHeader(headers[i], headers[i + 1]);
    }
    return new Stream(HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
  }

  static String send(String method, Object id, String payloadParts) {
    String idJson = id instanceof String s ? "\"" + s + "\"" : String.valueOf(id);
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + idJson
        + ",\"method\":\""
        + method
        + "\",\"params\":{\"message\":"
        + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\""
        + UUID.randomUUID()
        + "\",\"parts\":"
        + payloadParts
        + "},\"metadata\":{\"skill\":\"echo\"}}}";
  }

  @Override
  public void close() {
    gateway.close();
    jwks.stop(0);
  }
}
