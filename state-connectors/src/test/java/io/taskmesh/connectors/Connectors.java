package io.taskmesh.connectors;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;

/** Connectors started in-process for an IT, each on its own socket, closed together. */
final class Connectors implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger SEQ = new AtomicInteger();
  private final Path dir;
  private final List<AutoCloseable> opened = new ArrayList<>();

  Connectors() throws Exception {
    dir = Files.createTempDirectory("stc-");
  }

  static String unique(String name) {
    return name + "-" + SEQ.incrementAndGet() + "/";
  }

  /**
   * A connector of {@code type} with {@code env} (the socket is added) and a client on its socket.
   */
  UnixClient start(ConnectorType type, Map<String, String> env) throws Exception {
    Map<String, String> all = new HashMap<>(env);
    all.put("CONNECTOR_SOCKET", dir.resolve("c" + SEQ.incrementAndGet() + ".sock").toString());
    ConnectorConfig config = ConnectorConfig.fromEnv(type, all);
    ConnectorServer server = new ConnectorServer(config.socket(), Backends.create(config)).start();
    opened.add(server);
    UnixClient client = new UnixClient(config.socket());
    opened.add(client);
    return client;
  }

  static ContentResponse putExclusive(UnixClient c, String path, String body) throws Exception {
    return c.send(
        c.request(HttpMethod.PUT, path)
            .headers(h -> h.put("If-None-Match", "*"))
            .body(new StringRequestContent(body)));
  }

  static ContentResponse putMeta(UnixClient c, String key, String attr, String json)
      throws Exception {
    return c.send(
        c.request(HttpMethod.PUT, "/meta/" + key + "?attr=" + attr)
            .body(new StringRequestContent(json)));
  }

  static String attr(UnixClient c, String key, String attr) throws Exception {
    ContentResponse r = c.get("/meta/" + key + "?attr=" + attr);
    assertThat(r.getStatus()).as(r.getContentAsString()).isEqualTo(200);
    return JSON.readTree(r.getContent()).get("value").asText();
  }

  /**
   * Outcome of CAS incrementers: each client reads the counter and writes it plus one, {@code
   * rounds} times.
   */
  record Increments(int acknowledged, int conflicts) {}

  static Increments incrementConcurrently(List<UnixClient> clients, String path, int rounds)
      throws Exception {
    AtomicInteger acknowledged = new AtomicInteger();
    AtomicInteger conflicts = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(clients.size());
    try {
      List<Future<?>> done = new ArrayList<>();
      for (UnixClient c : clients) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < rounds; i++) {
                    int value = Integer.parseInt(c.get(path).getContentAsString().trim());
                    int status = c.put(path, String.valueOf(value + 1)).getStatus();
                    if (status == 204) {
                      acknowledged.incrementAndGet();
                    } else {
                      assertThat(status).isEqualTo(409);
                      conflicts.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return new Increments(acknowledged.get(), conflicts.get());
  }

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
    Files.deleteIfExists(dir);
  }
}
