package io.taskmesh.kvconnector;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;

/**
 * A connector on a fresh socket for a given {@code STATE_PROXY_PG_URL}, started even when the
 * database refuses it (then there is no schema, and the connector answers 503s): for the tests of
 * logins and TLS, where refusal is one of the cases.
 */
record ConnectorOn(KvStore store, KvApp app, UnixHttp http) implements AutoCloseable {

  static ConnectorOn url(String url) throws Exception {
    Path dir = Files.createTempDirectory("kvconn");
    KvConfig config =
        KvConfig.fromEnv(
            Map.of(
                "CONNECTOR_SOCKET",
                dir.resolve("kv.sock").toString(),
                "STATE_PROXY_PG_URL",
                url,
                "STATE_PROXY_PG_INDEXES",
                "status"));
    KvStore store = new KvStore(config);
    try {
      store.ensureSchema();
    } catch (SQLException e) {
      // refused (wrong password, untrusted certificate): the connector still serves, with 503s
    }
    return new ConnectorOn(store, new KvApp(config, store).start(), new UnixHttp(config.socket()));
  }

  @Override
  public void close() throws Exception {
    http.close();
    app.close();
    store.close();
  }
}
