package io.taskmesh.kvconnector;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.taskmesh.devkit.Closing;
import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What both benchmarks measure against: the connector ({@link BenchConnector}) with its keys
 * written and a client, the pgjdbc pool of the direct ops on its database, and, with {@code
 * -DconnectorJvmB="JVM options"}, a second connector in its own JVM whose kv ops run in the same
 * rounds, named with a {@code " [B]"} suffix (A/B within one run).
 */
final class BenchSetup implements AutoCloseable {
  static final String B = " [B]";

  final BenchConnector kv;
  final UnixHttpClient unix;
  final HikariDataSource direct;

  /** Null without {@code -DconnectorJvmB}. */
  final BenchConnector kvB;

  private final UnixHttpClient unixB;

  private BenchSetup(
      BenchConnector kv,
      UnixHttpClient unix,
      HikariDataSource direct,
      BenchConnector kvB,
      UnixHttpClient unixB) {
    this.kv = kv;
    this.unix = unix;
    this.direct = direct;
    this.kvB = kvB;
    this.unixB = unixB;
  }

  /**
   * Starts the connector(s) and writes their keys; the direct pool has a connection for each of
   * {@code threads}.
   */
  static BenchSetup start(int threads) throws Exception {
    Map<String, String> env =
        Map.of(
            "STATE_PROXY_PG_INDEXES",
            "status",
            "CONNECTOR_PG_POOL_SIZE",
            String.valueOf(KvBench.POOL));
    String optionsB = System.getProperty("connectorJvmB");
    BenchConnector kv = BenchConnector.start(env);
    UnixHttpClient unix = new UnixHttpClient(kv.socket());
    BenchConnector kvB = null;
    UnixHttpClient unixB = null;
    try {
      writeKeys(unix);
      if (optionsB != null) {
        kvB = BenchConnector.OwnJvm.start(env, optionsB);
        unixB = new UnixHttpClient(kvB.socket());
        writeKeys(unixB);
      }
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(kv.jdbcUrl());
      hc.setMaximumPoolSize(Math.max(8, threads));
      BenchSetup setup = new BenchSetup(kv, unix, new HikariDataSource(hc), kvB, unixB);
      System.out.println(
          "connector " + kv.describe() + (kvB == null ? "" : ";" + B + ": " + kvB.describe()));
      return setup;
    } catch (Exception | Error e) {
      Closing.closeAll(unixB, kvB, unix, kv);
      throw e;
    }
  }

  /** The ops of {@link KvBench#ops} for the connector, each kv op followed by the same op on B. */
  Map<String, KvBench.Op> ops(boolean jetty) {
    Map<String, KvBench.Op> a = KvBench.ops(kv, unix, direct, jetty);
    if (kvB == null) {
      return a;
    }
    Map<String, KvBench.Op> b = KvBench.ops(kvB, unixB, direct, false);
    Map<String, KvBench.Op> both = new LinkedHashMap<>();
    a.forEach(
        (name, op) -> {
          both.put(name, op);
          if (b.containsKey(name) && !name.startsWith("direct")) {
            both.put(name + B, b.get(name));
          }
        });
    return both;
  }

  /** The connector an op named {@code opName} goes to (for its CPU figures). */
  BenchConnector connectorOf(String opName) {
    return opName.endsWith(B) ? kvB : kv;
  }

  /** The keys {@code bench:0} .. the ops read and update, written through the connector. */
  private static void writeKeys(UnixHttpClient unix) throws Exception {
    byte[] value = KvBench.VALUE.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < KvBench.KEYS; i++) {
      HttpResponse r = unix.send("PUT", "/keys/bench:" + i, null, value);
      if (r.status() != 200 && r.status() != 201) {
        throw new IllegalStateException(r.status() + " " + r.bodyString());
      }
    }
  }

  @Override
  public void close() {
    Closing.closeAll(direct, unixB, kvB, unix, kv);
  }
}
