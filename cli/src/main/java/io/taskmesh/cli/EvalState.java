package io.taskmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.cli.eval.CandidateState;
import io.taskmesh.cli.eval.EvalFailure;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * replay-eval's candidate gets the live actor's state-proxy mounts ({@code stateProxy} of {@code
 * actors.yaml}), each re-rooted on {@code replay-eval/<eval id>/<live prefix>} of the same backend
 * and bucket: one connector per mount, as dev starts them, with {@code STATE_PREFIX} changed and
 * nothing else. A mount that names no backend uses dev's local one, read from {@code
 * {data}/state/local-backends.json}. A scratch prefix that could hold live keys (a live prefix of
 * any actor on the same bucket is a prefix of it, or the other way round: an empty live prefix
 * always is) is refused before anything runs. The connectors are children of this JVM watched by a
 * {@link ChildWatchdog}, so they go when replay-eval goes, kill -9 included.
 */
final class EvalState implements CandidateState {
  static final String SCRATCH_ROOT = "replay-eval/";

  private final ActorSpec actor;
  private final List<ActorSpec> all;
  private final Path dataDir;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final Map<String, Map<String, String>> envs = new LinkedHashMap<>();

  EvalState(ActorSpec actor, List<ActorSpec> all, Path dataDir) {
    this.actor = actor;
    this.all = all;
    this.dataDir = dataDir;
  }

  /** The scratch prefix of a mount whose live prefix is {@code live}. */
  static String scratchPrefix(String evalId, String live) {
    return SCRATCH_ROOT + evalId + "/" + live;
  }

  /** Whether keys under one prefix can be keys under the other. */
  static boolean overlap(String a, String b) {
    return a.startsWith(b) || b.startsWith(a);
  }

  @Override
  public synchronized List<Map<String, Object>> plan(String evalId) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (StateMount m : actor.stateProxy()) {
      String live = m.env().getOrDefault("STATE_PREFIX", "");
      String scratch = scratchPrefix(evalId, live);
      String backend = backend(m);
      for (ActorSpec other : all) {
        for (StateMount om : other.stateProxy()) {
          String otherLive = om.env().getOrDefault("STATE_PREFIX", "");
          if (backend(om).equals(backend) && overlap(scratch, otherLive)) {
            throw new EvalFailure(
                2,
                "state mount "
                    + actor.name()
                    + "/"
                    + m.name()
                    + ": its scratch prefix "
                    + scratch
                    + " could hold live keys of "
                    + other.name()
                    + "/"
                    + om.name()
                    + " (prefix '"
                    + otherLive
                    + "' on the same bucket); give that mount a STATE_PREFIX or run with"
                    + " --no-state");
          }
        }
      }
      Map<String, String> env = new HashMap<>(m.env());
      env.put("STATE_PREFIX", scratch);
      localBackend(m, env);
      envs.put(m.name(), env);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", m.name());
      row.put("path", m.path());
      row.put("connector", m.connectorType());
      if (env.containsKey("STATE_BUCKET")) {
        row.put("bucket", env.get("STATE_BUCKET"));
      }
      row.put("live_prefix", live);
      row.put("scratch_prefix", scratch);
      out.add(row);
    }
    return out;
  }

  /** The family, endpoint and bucket: two mounts with the same one share a key space. */
  private static String backend(StateMount m) {
    String type = m.connectorType();
    String family = type.substring(0, type.indexOf('-'));
    String endpoint =
        switch (family) {
          case "objstore" -> m.env().get("OBJSTORE_ENDPOINT_URL");
          case "blob" -> m.env().get("STORAGE_EMULATOR_HOST");
          default -> m.env().get("KVSTORE_URL");
        };
    String bucket =
        m.env()
            .getOrDefault(
                "STATE_BUCKET", family.equals("kv") ? "" : DevStateProxy.DEFAULT_LOCAL_BUCKET);
    return family + "|" + (endpoint == null ? "dev" : endpoint) + "|" + bucket;
  }

  /** Fills in dev's local backend for a mount that names none, as dev did for the live actor. */
  private void localBackend(StateMount m, Map<String, String> env) {
    String type = m.connectorType();
    if (type.startsWith("objstore-") && !env.containsKey("OBJSTORE_ENDPOINT_URL")) {
      JsonNode s3 = local(m, "objstore", "object store");
      env.putIfAbsent("STATE_BUCKET", DevStateProxy.DEFAULT_LOCAL_BUCKET);
      env.put("OBJSTORE_ENDPOINT_URL", s3.path("endpoint").asText());
      env.put("OBJSTORE_REGION", s3.path("region").asText());
      env.put("AWS_ACCESS_KEY_ID", s3.path("access_key_id").asText());
      env.put("AWS_SECRET_ACCESS_KEY", s3.path("secret_access_key").asText());
    } else if (type.startsWith("blob-") && !env.containsKey("STORAGE_EMULATOR_HOST")) {
      env.putIfAbsent("STATE_BUCKET", DevStateProxy.DEFAULT_LOCAL_BUCKET);
      env.put("STORAGE_EMULATOR_HOST", local(m, "blob", "blob store").path("endpoint").asText());
      env.putIfAbsent("CLOUD_PROJECT", "local");
    } else if (type.startsWith("kv-") && !env.containsKey("KVSTORE_URL")) {
      env.put("KVSTORE_URL", local(m, "kv", "Redis").path("url").asText());
    }
  }

  private JsonNode local(StateMount m, String key, String what) {
    Path file = dataDir.resolve(DevStateProxy.LOCAL_BACKENDS);
    JsonNode node = null;
    try {
      if (Files.exists(file)) {
        node = Json.MAPPER.readTree(file.toFile()).get(key);
      }
    } catch (IOException e) {
      node = null;
    }
    if (node == null) {
      throw new EvalFailure(
          2,
          "state mount "
              + actor.name()
              + "/"
              + m.name()
              + " uses dev's local "
              + what
              + ", but "
              + file
              + " does not name one: run it beside ./taskmesh dev with the same --data, or"
              + " run with --no-state");
    }
    return node;
  }

  @Override
  public synchronized Map<String, String> start(Path socketDir) {
    if (envs.isEmpty()) {
      return Map.of();
    }
    ChildWatchdog watchdog = ChildWatchdog.start("replay-eval-watchdog");
    started.push(watchdog);
    for (StateMount m : actor.stateProxy()) {
      Map<String, String> env = new HashMap<>(envs.get(m.name()));
      Path socket = socketDir.resolve(m.name() + ".sock");
      env.put("CONNECTOR_SOCKET", socket.toString());
      try {
        started.push(
            ConnectorProcess.start(
                "replay-eval/" + m.name(),
                m,
                socket,
                env,
                socketDir.resolve(m.name() + ".log"),
                watchdog::watch));
      } catch (RuntimeException e) {
        throw new EvalFailure(
            3,
            "the state connector of mount "
                + m.name()
                + " did not start: "
                + Main.Dev.describe(e).lines().findFirst().orElse(""));
      }
    }
    return Map.of(
        "SVC_STATE_PROXY_MOUNTS",
        actor.stateProxy().stream().map(StateMount::mountsEntry).collect(Collectors.joining(";")),
        "SVC_STATE_SOCKET_DIR",
        socketDir.toString());
  }

  @Override
  public synchronized void close() {
    while (!started.isEmpty()) {
      try {
        started.pop().close(); // the connectors first, the watchdog last
      } catch (Exception e) {
        // the watchdog stops what is left
      }
    }
  }
}
