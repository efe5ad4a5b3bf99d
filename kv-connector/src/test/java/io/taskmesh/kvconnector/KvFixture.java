package io.taskmesh.kvconnector;

import io.taskmesh.devkit.LocalPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** A connector on a real Unix socket in front of its own fresh database on the shared Postgres. */
final class KvFixture implements AutoCloseable {
  private static final AtomicInteger SEQ = new AtomicInteger();

  final Path dir;
  final KvConfig config;
  final KvStore store;
  final KvApp app;
  final UnixHttp http;
  final String jdbcUrl;

  private KvFixture(Path dir, KvConfig config, String jdbcUrl) throws Exception {
    this.dir = dir;
    this.config = config;
    this.jdbcUrl = jdbcUrl;
    this.store = new KvStore(config);
    store.ensureSchema();
    this.app = new KvApp(config, store).start();
    this.http = new UnixHttp(config.socket());
  }

  static KvFixture start(Map<String, String> extraEnv) throws Exception {
    String jdbc = freshDatabase();
    Path dir = Files.createTempDirectory("kvc");
    Map<String, String> env = new HashMap<>();
    env.put("CONNECTOR_SOCKET", dir.resolve("kv.sock").toString());
    env.put("STATE_PROXY_PG_URL", jdbc);
    env.putAll(extraEnv);
    return new KvFixture(dir, KvConfig.fromEnv(env), jdbc);
  }

  /** A new database on the shared server, so each test class owns its {@code kv} table. */
  static String freshDatabase() throws Exception {
    LocalPostgres pg = LocalPostgres.shared();
    String name = "kv_it_" + ProcessHandle.current().pid() + "_" + SEQ.incrementAndGet();
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    return pg.jdbcUrl().replace("/postgres?", "/" + name + "?");
  }

  Connection jdbc() throws Exception {
    return DriverManager.getConnection(jdbcUrl);
  }

  @Override
  public void close() throws Exception {
    http.close();
    app.close();
    store.close();
  }
}
