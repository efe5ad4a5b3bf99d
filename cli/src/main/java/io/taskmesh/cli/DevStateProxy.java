package io.taskmesh.cli;

import io.taskmesh.devkit.LocalGcsServer;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state proxy of {@code ./taskmesh dev}: per actor with {@code stateProxy} mounts, one
 * connector per mount (socket {@code {dataDir}/state/{actor}/{name}.sock}) and the runtime's {@code
 * SVC_STATE_PROXY_MOUNTS} / {@code SVC_STATE_SOCKET_DIR}. An object-store mount whose {@code
 * connector.env} names no {@code OBJSTORE_ENDPOINT_URL} gets a local S3 server (one for all such
 * mounts, started on first need), its bucket created there; a key-value mount without {@code
 * KVSTORE_URL} gets a local Redis (likewise one for all); a blob mount without {@code
 * STORAGE_EMULATOR_HOST} gets the in-memory JSON API server of state-connectors ({@link
 * LocalGcsServer}, the blob connectors' test backend, held to the official client by its test), in
 * this process.
 *
 * <p>The local backends it started are written to {@code {dataDir}/state/local-backends.json}
 * ({@link #LOCAL_BACKENDS}), so that a command beside dev (replay-eval) can give a candidate the
 * same backends on a scratch prefix; the file is deleted when dev stops.
 */
final class DevStateProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevStateProxy.class);
  static final String DEFAULT_LOCAL_BUCKET = "taskmesh-state";

  /** Where the local backends are written, under the data folder. */
  static final Path LOCAL_BACKENDS = Path.of("state", "local-backends.json");

  private final Path dataDir;
  private final Consumer<String> say;

  /** Records each connector started, a restarted one too ({@link DevChildren#record()}). */
  private final Runnable childStarted;

  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final Map<String, ConnectorProcess> connectors = new LinkedHashMap<>();
  private LocalS3 localS3;
  private LocalRedis localRedis;
  private LocalGcsServer localGcs;

  DevStateProxy(Path dataDir, Consumer<String> say) {
    this(dataDir, say, () -> {});
  }

  DevStateProxy(Path dataDir, Consumer<String> say, Runnable childStarted) {
    this.dataDir = dataDir;
    this.say = say;
    this.childStarted = childStarted;
  }

  /** Dev is stopping: no connector is restarted any more (see {@link ConnectorProcess}). */
  synchronized void refuseRestarts() {
    connectors.values().forEach(ConnectorProcess::refuseRestarts);
  }

  /**
   * Starts the actor's connectors; answers the variables its runtime needs (none without mounts).
   */
  Map<String, String> startMounts(ActorSpec actor) {
    // not under the lock: an actor without mounts must not wait while another's start runs a
    // local S3 server up (seconds; the actors start side by side)
    if (actor.stateProxy().isEmpty()) {
      return Map.of();
    }
    return startConnectors(actor);
  }

  private synchronized Map<String, String> startConnectors(ActorSpec actor) {
    Path socketDir = dataDir.resolve("state").resolve(actor.name());
    for (StateMount mount : actor.stateProxy()) {
      Map<String, String> env = connectorEnv(mount, socketDir);
      String label = actor.name() + "/" + mount.name();
      ConnectorProcess c =
          ConnectorProcess.start(
              label,
              mount,
              Path.of(env.get("CONNECTOR_SOCKET")),
              env,
              socketDir.resolve(mount.name() + ".log"),
              pid -> childStarted.run());
      started.push(c);
      connectors.put(label, c);
      say.accept(
          "state "
              + label
              + ": "
              + mount.path()
              + " ("
              + mount.writeMode()
              + ") -> "
              + mount.connectorType()
              + " "
              + backendLabel(env));
    }
    return Map.of(
        "SVC_STATE_PROXY_MOUNTS",
            actor.stateProxy().stream()
                .map(StateMount::mountsEntry)
                .collect(Collectors.joining(";")),
        "SVC_STATE_SOCKET_DIR", socketDir.toString());
  }

  private static String backendLabel(Map<String, String> env) {
    if (env.containsKey("KVSTORE_URL")) {
      return env.get("KVSTORE_URL").replaceAll("//[^@/]*@", "//***@"); // no password in the log
    }
    return env.getOrDefault("OBJSTORE_ENDPOINT_URL", env.getOrDefault("STORAGE_EMULATOR_HOST", ""))
        + " bucket "
        + env.getOrDefault("STATE_BUCKET", "-");
  }

  private Map<String, String> connectorEnv(StateMount mount, Path socketDir) {
    Map<String, String> env = new HashMap<>(mount.env());
    env.put("CONNECTOR_SOCKET", socketDir.resolve(mount.name() + ".sock").toString());
    if (mount.connectorType().startsWith("objstore-")
        && !env.containsKey("OBJSTORE_ENDPOINT_URL")) {
      LocalS3 s3 = localS3();
      env.putIfAbsent("STATE_BUCKET", DEFAULT_LOCAL_BUCKET);
      env.put("OBJSTORE_ENDPOINT_URL", s3.endpoint());
      env.put("OBJSTORE_REGION", LocalS3.REGION);
      env.put("AWS_ACCESS_KEY_ID", LocalS3.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", LocalS3.SECRET_KEY);
      s3.ensureBucket(env.get("STATE_BUCKET"));
    }
    if (mount.connectorType().startsWith("blob-") && !env.containsKey("STORAGE_EMULATOR_HOST")) {
      LocalGcsServer gcs = localGcs();
      env.putIfAbsent("STATE_BUCKET", DEFAULT_LOCAL_BUCKET);
      env.put("STORAGE_EMULATOR_HOST", gcs.endpoint().toString());
      env.putIfAbsent("CLOUD_PROJECT", "local");
      gcs.createBucket(env.get("STATE_BUCKET"));
    }
    if (mount.connectorType().startsWith("kv-") && !env.containsKey("KVSTORE_URL")) {
      env.put("KVSTORE_URL", localRedis().url());
    }
    return env;
  }

  private LocalS3 localS3() {
    if (localS3 == null) {
      Path log = dataDir.resolve("state").resolve("local-s3.log");
      localS3 = LocalS3.start(log, Duration.ofSeconds(60));
      started.push(localS3);
      writeLocalBackends();
      say.accept(
          "state: local S3 server (moto) at "
              + localS3.endpoint()
              + " (in memory; log "
              + log
              + ")");
    }
    return localS3;
  }

  private LocalRedis localRedis() {
    if (localRedis == null) {
      Path dir = dataDir.resolve("state").resolve("local-redis");
      localRedis = LocalRedis.start(dir, Duration.ofSeconds(30));
      started.push(localRedis);
      writeLocalBackends();
      say.accept("state: local Redis at " + localRedis.url() + " (in memory; log in " + dir + ")");
    }
    return localRedis;
  }

  private LocalGcsServer localGcs() {
    if (localGcs == null) {
      try {
        localGcs = new LocalGcsServer(0);
      } catch (IOException e) {
        throw new UncheckedIOException("local blob store: cannot open a port", e);
      }
      started.push(localGcs);
      writeLocalBackends();
      say.accept(
          "state: local blob store (JSON API, in memory, in this process) at "
              + localGcs.endpoint());
    }
    return localGcs;
  }

  /** The local blob store's endpoint, when one was started. */
  synchronized Optional<URI> localBlobEndpoint() {
    return Optional.ofNullable(localGcs).map(LocalGcsServer::endpoint);
  }

  /** The local Redis's URL, when one was started. */
  synchronized Optional<String> localRedisUrl() {
    return Optional.ofNullable(localRedis).map(LocalRedis::url);
  }

  /** dev's data folder. */
  Path dataDir() {
    return dataDir;
  }

  /** The local S3 server's endpoint, when one was started. */
  synchronized Optional<String> localS3Endpoint() {
    return Optional.ofNullable(localS3).map(LocalS3::endpoint);
  }

  /** The connector of {@code actor}'s mount {@code name}. */
  synchronized ConnectorProcess connector(String actor, String name) {
    ConnectorProcess c = connectors.get(actor + "/" + name);
    if (c == null) {
      throw new IllegalArgumentException(
          "no state mount " + actor + "/" + name + "; known: " + connectors.keySet());
    }
    return c;
  }

  synchronized List<String> mountLabels() {
    return List.copyOf(connectors.keySet());
  }

  /**
   * {@code {"objstore": {"endpoint", "region", "access_key_id", "secret_access_key"}, "blob":
   * {"endpoint"}, "kv": {"url"}}}, those started; owner-only (moto's made-up keys are keys still).
   */
  private void writeLocalBackends() {
    Map<String, Object> all = new LinkedHashMap<>();
    if (localS3 != null) {
      all.put(
          "objstore",
          Map.of(
              "endpoint", localS3.endpoint(),
              "region", LocalS3.REGION,
              "access_key_id", LocalS3.ACCESS_KEY,
              "secret_access_key", LocalS3.SECRET_KEY));
    }
    if (localGcs != null) {
      all.put("blob", Map.of("endpoint", localGcs.endpoint().toString()));
    }
    if (localRedis != null) {
      all.put("kv", Map.of("url", localRedis.url()));
    }
    Path file = dataDir.resolve(LOCAL_BACKENDS);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      Files.deleteIfExists(tmp);
      Files.createFile(
          tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, Json.write(all));
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      Files.deleteIfExists(dataDir.resolve(LOCAL_BACKENDS));
    } catch (IOException e) {
      LOG.warn("cannot delete {}: {}", dataDir.resolve(LOCAL_BACKENDS), e.toString());
    }
    while (!started.isEmpty()) {
      AutoCloseable c = started.pop();
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("stopping {} failed: {}", c.getClass().getSimpleName(), e.toString());
      }
    }
  }
}
