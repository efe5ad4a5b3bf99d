package io.taskmesh.kvconnector;

import io.taskmesh.servicekit.ApiException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.pgclient.SslMode;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.net.URI;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The per-key statements ({@code GET/HEAD/PUT/DELETE /keys/{key}}) on Vert.x's reactive Postgres
 * client. One instance per event loop, created on it: its connections live on that loop, so a
 * request is read, queried and answered by one thread with no hand-off (the README's benchmark).
 * The GETs of one pass of the loop share a round trip ({@link #get}). Each statement runs in
 * autocommit; a future completes only after Postgres answered, so a 2xx is sent for committed
 * writes only. A failure that is not a Postgres error (refused connection, connection closed
 * mid-statement, no connection within the timeout) becomes a 503.
 */
final class KeyStatements {
  private static final String SELECT =
      "SELECT key, value::text, created_at, updated_at FROM kv WHERE key = $1";
  private static final String EXISTS = "SELECT 1 FROM kv WHERE key = $1";
  // $2::text::jsonb: a Java String bound to a jsonb parameter would be stored as a JSON string
  private static final String UPSERT =
      "INSERT INTO kv (key, value) VALUES ($1, $2::text::jsonb) "
          + "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now() "
          + "RETURNING created_at, updated_at, (xmax = 0) AS inserted";
  private static final String CREATE =
      "INSERT INTO kv (key, value) VALUES ($1, $2::text::jsonb) "
          + "ON CONFLICT (key) DO NOTHING RETURNING created_at, updated_at";
  private static final String PUT_IF_STATUS =
      "UPDATE kv SET value = $2::text::jsonb, updated_at = now() "
          + "WHERE key = $1 AND (value->>'status') = $3 RETURNING created_at, updated_at";
  private static final String STORED_STATUS = "SELECT value->>'status' FROM kv WHERE key = $1";
  private static final String DELETE = "DELETE FROM kv WHERE key = $1";

  /** Outcome of a write. */
  record PutResult(boolean created, Instant createdAt, Instant updatedAt) {}

  private static final LongAdder readBatches = new LongAdder();
  private static final LongAdder readsBatched = new LongAdder();

  private record PendingRead(String key, Promise<Optional<KvRecord>> answer) {}

  private static final LongAdder writeBatches = new LongAdder();
  private static final LongAdder writesBatched = new LongAdder();

  private record PendingPut(
      String key, String json, String ifStatus, Promise<Optional<PutResult>> answer) {
    Tuple params() {
      return Tuple.of(key, json, ifStatus);
    }
  }

  private final Pool pool;

  /** GETs read in the loop's current pass, not yet sent. */
  private final PassBatcher<PendingRead> reads;

  /** Conditional PUTs read in the loop's current pass, not yet sent. */
  private final PassBatcher<PendingPut> puts;

  /** Called on the event loop whose {@code context} this is. */
  KeyStatements(Vertx vertx, Context context, KvConfig config, int connections) {
    this.reads = new PassBatcher<>(context, this::sendReads, readBatches, readsBatched);
    this.puts = new PassBatcher<>(context, this::sendPuts, writeBatches, writesBatched);
    PgConnectOptions connect = connectOptions(config);
    connect.setCachePreparedStatements(true);
    // one statement per connection at a time, as with pgjdbc: a broken connection fails one request
    connect.setPipeliningLimit(1);
    NetClientOptions transport =
        new NetClientOptions()
            .setConnectTimeout((int) config.pgTimeout().toMillis())
            .setTcpKeepAlive(true)
            // like pgjdbc's socketTimeout: a connection silent for 30 s (a statement Postgres never
            // answers) is closed, and its request gets a 503; idle pooled connections are reopened
            // on demand
            .setIdleTimeout(30)
            .setIdleTimeoutUnit(TimeUnit.SECONDS);
    PoolOptions options =
        new PoolOptions()
            .setMaxSize(connections)
            .setConnectionTimeout((int) config.pgTimeout().toMillis())
            .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS)
            .setName("kv-connector-keys");
    this.pool =
        PgBuilder.pool().with(options).with(transport).connectingTo(connect).using(vertx).build();
  }

  /**
   * {@link KvConfig#jdbcUrl()} (host, port, database, {@code user}/{@code password} parameters) as
   * Vert.x options.
   */
  static PgConnectOptions connectOptions(KvConfig config) {
    URI uri = URI.create(config.jdbcUrl().substring("jdbc:".length()));
    PgConnectOptions o =
        new PgConnectOptions()
            .setHost(uri.getHost() == null ? "localhost" : uri.getHost())
            .setPort(uri.getPort() > 0 ? uri.getPort() : 5432)
            .setDatabase(
                uri.getPath() == null || uri.getPath().length() <= 1
                    ? "postgres"
                    : uri.getPath().substring(1));
    o.addProperty("application_name", "kv-connector");
    ClientSSLOptions ssl = new ClientSSLOptions();
    KvConfig.urlParameters(config.jdbcUrl())
        .forEach(
            (name, value) -> {
              switch (name) {
                case "user" -> o.setUser(value);
                case "password" -> o.setPassword(value);
                case "ApplicationName" -> o.addProperty("application_name", value);
                case "sslmode" -> o.setSslMode(SslMode.of(value));
                case "sslrootcert" -> ssl.setTrustOptions(new PemTrustOptions().addCertPath(value));
                default -> {} // KvConfig admits no other parameter
              }
            });
    // as pgjdbc: require encrypts without checking the certificate; verify-ca checks it against
    // sslrootcert; verify-full also checks that it names the host
    switch (o.getSslMode()) {
      case REQUIRE -> o.setSslOptions(ssl.setTrustAll(true));
      case VERIFY_CA -> o.setSslOptions(ssl.setHostnameVerificationAlgorithm(""));
      case VERIFY_FULL -> o.setSslOptions(ssl.setHostnameVerificationAlgorithm("HTTPS"));
      default -> {}
    }
    if (config.pgUser() != null) {
      o.setUser(config.pgUser());
    }
    if (config.pgPassword() != null) {
      o.setPassword(config.pgPassword());
    }
    return o;
  }

  /**
   * A GET joins the reads of this loop's current pass; the pass's reads go to Postgres together
   * when it ends ({@link #sendReads}). Always on: batched GETs beat one statement per GET in every
   * measured round (docs/bench/kv-connector.md, docs/decisions/0004-batched-key-reads.md).
   */
  Future<Optional<KvRecord>> get(String key) {
    Promise<Optional<KvRecord>> answer = Promise.promise();
    reads.add(new PendingRead(key, answer));
    return answer.future();
  }

  /**
   * Sends a pass's GETs: one alone as a plain statement; several as one batch of the same prepared
   * statement (Bind/Execute per key, one Sync: one write, one wake-up of the backend, one flush of
   * its answers). The batch is one implicit transaction, but under read committed each SELECT still
   * takes its own snapshot, so every GET reads what was committed before it was sent, as alone. If
   * the batch fails, each of its GETs gets that failure (a 503 when the connection failed); a
   * SELECT by primary key has no error of its own that could fail its neighbours.
   */
  private void sendReads(List<PendingRead> batch) {
    if (batch.size() == 1) {
      PendingRead read = batch.get(0);
      run(SELECT, Tuple.of(read.key())).map(KeyStatements::record).onComplete(read.answer());
      return;
    }
    List<Tuple> keys = new ArrayList<>(batch.size());
    batch.forEach(read -> keys.add(Tuple.of(read.key())));
    pool.preparedQuery(SELECT)
        .executeBatch(keys)
        .recover(KeyStatements::classify)
        .onComplete(
            done -> {
              if (done.failed()) {
                batch.forEach(read -> read.answer().fail(done.cause()));
                return;
              }
              RowSet<Row> rows = done.result();
              for (PendingRead read : batch) {
                read.answer().complete(record(rows));
                rows = rows.next();
              }
            });
  }

  /** Round trips that batched GETs took so far, over every instance (benchmark, tests). */
  static long readRoundTrips() {
    return readBatches.sum();
  }

  /** GETs sent in those round trips. */
  static long readsSent() {
    return readsBatched.sum();
  }

  private static Optional<KvRecord> record(RowSet<Row> rows) {
    if (rows.size() == 0) {
      return Optional.empty();
    }
    Row r = rows.iterator().next();
    return Optional.of(new KvRecord(r.getString(0), r.getString(1), instant(r, 2), instant(r, 3)));
  }

  Future<Boolean> exists(String key) {
    return run(EXISTS, Tuple.of(key)).map(rows -> rows.size() > 0);
  }

  Future<PutResult> upsert(String key, String json) {
    return run(UPSERT, Tuple.of(key, json))
        .map(
            rows -> {
              Row r = rows.iterator().next();
              return new PutResult(r.getBoolean(2), instant(r, 0), instant(r, 1));
            });
  }

  /** {@code If-None-Match: *}: insert only; empty when the key exists. */
  Future<Optional<PutResult>> create(String key, String json) {
    return run(CREATE, Tuple.of(key, json)).map(rows -> written(rows, true));
  }

  /**
   * Writes only when the stored {@code status} field equals {@code ifStatus}; empty otherwise.
   * Joins the conditional PUTs of this loop's current pass, sent together when it ends ({@link
   * #sendPuts}).
   */
  Future<Optional<PutResult>> putIfStatus(String key, String json, String ifStatus) {
    Promise<Optional<PutResult>> answer = Promise.promise();
    puts.add(new PendingPut(key, json, ifStatus, answer));
    return answer.future();
  }

  private Future<Optional<PutResult>> putIfStatusAlone(PendingPut put) {
    return run(PUT_IF_STATUS, put.params()).map(rows -> written(rows, false));
  }

  /**
   * Sends a pass's conditional PUTs: one alone as a plain statement; several as one batch of the
   * prepared UPDATE (Bind/Execute per write, one Sync), which Postgres runs as one transaction with
   * one commit. No answer goes out before that commit, so each acknowledged write is as durable as
   * alone. The batch is sorted by key (stable: two writes of one key keep their order), so that two
   * batches lock their rows in the same order and cannot deadlock each other; the writes of one
   * batch arrived in the same pass, concurrently, so any order between different keys is one they
   * could have had alone. If Postgres refuses the batch (one write's error aborts the whole
   * transaction, which then changed nothing), each write is run again alone, in order, so that one
   * write's error is its own and never another's. If the connection fails, each write gets the 503
   * a single write would get.
   */
  private void sendPuts(List<PendingPut> pass) {
    if (pass.size() == 1) {
      putIfStatusAlone(pass.get(0)).onComplete(pass.get(0).answer());
      return;
    }
    List<PendingPut> batch = new ArrayList<>(pass);
    batch.sort(Comparator.comparing(PendingPut::key));
    List<Tuple> params = new ArrayList<>(batch.size());
    batch.forEach(put -> params.add(put.params()));
    pool.preparedQuery(PUT_IF_STATUS)
        .executeBatch(params)
        .recover(KeyStatements::classify)
        .onComplete(
            done -> {
              if (done.succeeded()) {
                RowSet<Row> rows = done.result();
                for (PendingPut put : batch) {
                  put.answer().complete(written(rows, false));
                  rows = rows.next();
                }
              } else if (done.cause() instanceof PgException) {
                oneByOne(batch, 0);
              } else {
                batch.forEach(put -> put.answer().fail(done.cause()));
              }
            });
  }

  /** Runs the writes of a refused batch alone, each after the one before it has its answer. */
  private void oneByOne(List<PendingPut> batch, int next) {
    if (next == batch.size()) {
      return;
    }
    PendingPut put = batch.get(next);
    putIfStatusAlone(put)
        .onComplete(
            done -> {
              put.answer().handle(done);
              oneByOne(batch, next + 1);
            });
  }

  /**
   * Round trips that batched conditional PUTs took so far, over every instance (benchmark, tests).
   */
  static long writeRoundTrips() {
    return writeBatches.sum();
  }

  /** Conditional PUTs sent in those round trips. */
  static long writesSent() {
    return writesBatched.sum();
  }

  /** The stored {@code status} (for a 409 message); empty when the key is missing. */
  Future<Optional<String>> storedStatus(String key) {
    return run(STORED_STATUS, Tuple.of(key))
        .map(
            rows ->
                rows.size() == 0
                    ? Optional.empty()
                    : Optional.of(String.valueOf(rows.iterator().next().getString(0))));
  }

  Future<Boolean> delete(String key) {
    return run(DELETE, Tuple.of(key)).map(rows -> rows.rowCount() > 0);
  }

  Future<Void> ping() {
    return run("SELECT 1", Tuple.tuple()).mapEmpty();
  }

  Future<Void> close() {
    return pool.close();
  }

  private Future<RowSet<Row>> run(String sql, Tuple params) {
    return pool.preparedQuery(sql).execute(params).recover(KeyStatements::classify);
  }

  /**
   * Postgres errors keep their SQLSTATE (ErrorAnswer maps them); anything else is the database
   * being unreachable.
   */
  private static Future<RowSet<Row>> classify(Throwable e) {
    if (e instanceof PgException) {
      return Future.failedFuture(e);
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return Future.failedFuture(ApiException.unavailable("database unavailable: " + message));
  }

  private static Optional<PutResult> written(RowSet<Row> rows, boolean created) {
    if (rows.size() == 0) {
      return Optional.empty();
    }
    Row r = rows.iterator().next();
    return Optional.of(new PutResult(created, instant(r, 0), instant(r, 1)));
  }

  private static Instant instant(Row r, int col) {
    OffsetDateTime t = r.getOffsetDateTime(col);
    return t == null ? null : t.toInstant();
  }
}
