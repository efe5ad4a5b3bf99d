package io.taskmesh.meshapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.MeshStatus;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.ApiException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The envelope lifecycle. Stored value of key {@code mesh:{id}}: {@code {id, status, created_at,
 * updated_at, deadline_at?, data: {actor, namespace, payload, headers, timeout?, deadline_at?,
 * current_actor?, progress, result?, error?, message?}}}. Every change is a conditional PUT ({@code
 * if_status} = the status just read), retried after a re-read on 409, so concurrent writers (any
 * replica) can never move a status backwards.
 */
public final class MeshService {
  private static final Logger LOG = LoggerFactory.getLogger(MeshService.class);
  static final String KEY_PREFIX = "mesh:";
  static final int MAX_WRITE_ATTEMPTS = 50;
  static final double MAX_TIMEOUT_SECONDS = 365.0 * 24 * 3600;

  /** Fixed width (always milliseconds) so that timestamps also sort correctly as strings. */
  static final DateTimeFormatter TS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final ConnectorClient kv;
  private final EventBus bus;
  private final Supplier<String> gatewayUrl;
  private final String defaultNamespace;
  private final Supplier<Instant> clock;

  public MeshService(
      ConnectorClient kv,
      EventBus bus,
      Supplier<String> gatewayUrl,
      String defaultNamespace,
      Supplier<Instant> clock) {
    this.kv = kv;
    this.bus = bus;
    this.gatewayUrl = gatewayUrl;
    this.defaultNamespace = defaultNamespace;
    this.clock = clock;
  }

  static String ts(Instant t) {
    return TS.format(t);
  }

  // ---- create

  /** A validated create request. */
  public record CreateRequest(
      String actor,
      String namespace,
      JsonNode payload,
      Map<String, Object> headers,
      Double timeoutSeconds) {}

  public CreateRequest parseCreate(String actor, String namespace, JsonNode body) {
    if (actor == null || actor.isBlank()) {
      throw ApiException.badRequest("query parameter 'actor' is required");
    }
    if (!MeshConfig.TOPIC_PART.matcher(actor).matches() || actor.length() > 200) {
      throw ApiException.badRequest(
          "actor '" + actor + "' may only contain letters, digits, '.', '_' and '-' (at most 200)");
    }
    if (Topics.isCrewActor(actor)) {
      throw ApiException.badRequest("actor '" + actor + "' is a crew actor and cannot be a target");
    }
    String ns = namespace == null || namespace.isBlank() ? defaultNamespace : namespace;
    if (ns == null) {
      throw ApiException.badRequest(
          "query parameter 'namespace' is required (SVC_NAMESPACE is not set)");
    }
    if (!MeshConfig.TOPIC_PART.matcher(ns).matches() || ns.length() > 40) {
      throw ApiException.badRequest(
          "namespace '" + ns + "' may only contain letters, digits, '.', '_' and '-' (at most 40)");
    }
    JsonNode payload = NullNode.getInstance();
    Map<String, Object> headers = new LinkedHashMap<>();
    Double timeout = null;
    if (body != null && !body.isNull() && !body.isMissingNode()) {
      if (!body.isObject()) {
        throw ApiException.badRequest(
            "the body must be a JSON object with optional payload, headers, timeout");
      }
      for (var it = body.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        if (!List.of("payload", "headers", "timeout").contains(f)) {
          throw ApiException.badRequest(
              "unknown field '" + f + "'; allowed: payload, headers, timeout");
        }
      }
      if (body.has("payload")) {
        payload = body.get("payload");
        rejectNulCharacters(payload, "payload");
      }
      JsonNode h = body.get("headers");
      if (h != null && !h.isNull()) {
        if (!h.isObject()) {
          throw ApiException.badRequest("'headers' must be an object");
        }
        rejectNulCharacters(h, "headers");
        h.properties()
            .iterator()
            .forEachRemaining(
                e -> {
                  if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                    throw ApiException.badRequest(
                        "header '" + e.getKey() + "' must be a string, number or boolean");
                  }
                  headers.put(
                      e.getKey(),
                      e.getValue().isTextual()
                          ? e.getValue().asText()
                          : Json.MAPPER.convertValue(e.getValue(), Object.class));
                });
      }
      JsonNode t = body.get("timeout");
      if (t != null && !t.isNull()) {
        if (!t.isNumber() || t.asDouble() <= 0 || t.asDouble() > MAX_TIMEOUT_SECONDS) {
          throw ApiException.badRequest(
              "'timeout' must be a number of seconds above 0 and at most one year");
        }
        timeout = t.asDouble();
      }
    }
    return new CreateRequest(actor, ns, payload, headers, timeout);
  }

  /**
   * The store keeps JSON as Postgres {@code jsonb}, which cannot hold U+0000 in any string (nor can
   * JSON hold an infinite number): such a request is the client's mistake (400 naming where), not
   * the store's failure (502).
   */
  static void rejectNulCharacters(JsonNode node, String path) {
    // 1e999 reads as an infinite double, which no JSON text can hold: it would be written back as
    // the non-JSON token Infinity
    if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
      throw ApiException.badRequest("field '" + path + "' is a number too large to store");
    }
    if (node.isTextual() && node.textValue().indexOf('\0') >= 0) {
      throw ApiException.badRequest(
          "field '" + path + "' holds the character \\u0000, which cannot be stored");
    }
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        rejectNulCharacters(node.get(i), path + "[" + i + "]");
      }
    } else if (node.isObject()) {
      for (var it = node.properties().iterator(); it.hasNext(); ) {
        var field = it.next();
        String name = path + "." + field.getKey();
        if (field.getKey().indexOf('\0') >= 0) {
          throw ApiException.badRequest(
              "a key in '" + path + "' holds the character \\u0000, which cannot be stored");
        }
        rejectNulCharacters(field.getValue(), name);
      }
    }
  }

  public String create(CreateRequest req) {
    String id = UUID.randomUUID().toString();
    Instant now = clock.get();
    String createdAt = ts(now);
    String deadline =
        req.timeoutSeconds() == null
            ? null
            : ts(now.plusNanos((long) (req.timeoutSeconds() * 1_000_000_000L)));
    Map<String, Object> headers = new LinkedHashMap<>(req.headers());
    headers.put(Envelope.GATEWAY_URL_HEADER, gatewayUrl.get());
    // sidecars report to mesh-api's POST {url}/mesh/{id}/events, not the gateway's legacy routes
    headers.put(Envelope.GATEWAY_PROTOCOL_HEADER, Envelope.EVENTS_PROTOCOL);

    ObjectNode data = JsonNodeFactory.instance.objectNode();
    data.put("actor", req.actor());
    data.put("namespace", req.namespace());
    data.set("payload", req.payload());
    data.set("headers", Json.tree(headers));
    if (req.timeoutSeconds() != null) {
      data.put("timeout", req.timeoutSeconds());
      data.put("deadline_at", deadline);
    }
    data.put("progress", 0);
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("id", id);
    value.put("status", MeshStatus.PENDING.wire());
    value.put("created_at", createdAt);
    value.put("updated_at", createdAt);
    if (deadline != null) {
      value.put("deadline_at", deadline);
    }
    value.set("data", data);
    if (!kv.create(KEY_PREFIX + id, value)) {
      throw new ApiException(500, "internal", "generated id " + id + " already exists");
    }
    Envelope env =
        new Envelope(
            id,
            null,
            new Route(List.of(), req.actor(), List.of()),
            EnvelopeStatus.pending(null, null, createdAt, deadline),
            req.payload(),
            headers);
    String topic = Topics.actorQueue(req.namespace(), req.actor());
    try {
      bus.dispatch(topic, id, Json.bytes(env));
    } catch (ApiException e) {
      ObjectNode why = JsonNodeFactory.instance.objectNode();
      why.put("actor", "mesh-api");
      why.put("error", "dispatch failed: " + e.getMessage());
      try {
        applyStatus(id, MeshStatus.FAILED, why);
      } catch (RuntimeException again) {
        LOG.warn("could not mark {} failed after the dispatch failure: {}", id, again.getMessage());
      }
      throw e;
    }
    return id;
  }

  // ---- read

  public Optional<JsonNode> find(String id) {
    if (!validId(id)) {
      return Optional.empty();
    }
    return kv.get(KEY_PREFIX + id);
  }

  public ObjectNode get(String id) {
    return item(find(id).orElseThrow(() -> MeshService.envelopeNotFound(id)));
  }

  /** {@code {id, status, created_at, updated_at, data}} of a stored value. */
  static ObjectNode item(JsonNode stored) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    for (String f : List.of("id", "status", "created_at", "updated_at", "data")) {
      o.set(f, stored.get(f));
    }
    return o;
  }

  public ObjectNode list(String status, String limit, String offset) {
    ObjectNode q = JsonNodeFactory.instance.objectNode();
    q.put("prefix", KEY_PREFIX);
    if (status != null && !status.isEmpty()) {
      MeshStatus wanted =
          MeshStatus.find(status)
              .orElseThrow(
                  () -> ApiException.badRequest("'status' must be one of " + MeshStatus.ALL));
      q.putObject("filter").put("status", wanted.wire());
    }
    q.putArray("sort").add("-created_at").add("-id");
    Long l = nonNegative("limit", limit);
    Long o = nonNegative("offset", offset);
    if (l != null) {
      q.put("limit", l);
    }
    if (o != null) {
      q.put("offset", o);
    }
    q.put("count", true);
    ConnectorClient.Page page = kv.query(q);
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    var messages = out.putArray("messages");
    page.values().forEach(v -> messages.add(item(v)));
    out.put("total", page.total());
    return out;
  }

  private static Long nonNegative(String name, String raw) {
    if (raw == null || raw.isEmpty()) {
      return null;
    }
    try {
      long n = Long.parseLong(raw);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // below
    }
    throw ApiException.badRequest("'" + name + "' must be a non-negative integer");
  }

  // ---- status changes

  /** What {@link #applyStatus} did. */
  public enum Outcome {
    APPLIED,
    STALE
  }

  /**
   * Moves envelope {@code id} to {@code status} if the ordering allows it; a stale update changes
   * nothing. {@code data} may carry {@code actor}, {@code progress} (0-100), {@code result}, {@code
   * error}, {@code message}. Publishes the new status to every replica when applied.
   */
  public Outcome applyStatus(String id, MeshStatus status, ObjectNode data) {
    Optional<MeshEvent> event = writeStatus(id, status, data);
    event.ifPresent(bus::publish);
    return event.isPresent() ? Outcome.APPLIED : Outcome.STALE;
  }

  /**
   * {@link #applyStatus} without the fan-out: the status event to publish when the write was
   * applied, empty when it was stale.
   */
  Optional<MeshEvent> writeStatus(String id, MeshStatus status, ObjectNode data) {
    String key = KEY_PREFIX + id;
    for (int attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      JsonNode stored =
          (validId(id) ? kv.get(key) : Optional.<JsonNode>empty())
              .orElseThrow(() -> MeshService.envelopeNotFound(id));
      String current = stored.path("status").asText();
      // a stored value this version cannot read is overwritten, never kept
      MeshStatus.Move move =
          MeshStatus.find(current).map(status::over).orElse(MeshStatus.Move.ADVANCE);
      if (move == MeshStatus.Move.STALE) {
        return Optional.empty();
      }
      ObjectNode next = ((ObjectNode) stored).deepCopy();
      next.put("status", status.wire());
      next.put("updated_at", ts(clock.get()));
      ObjectNode d = next.withObjectProperty("data");
      double oldProgress = d.path("progress").asDouble(0);
      double progress = oldProgress;
      if (data != null) {
        if (data.hasNonNull("actor")) {
          d.put("current_actor", data.get("actor").asText());
        }
        if (data.hasNonNull("progress")) {
          progress = Math.max(oldProgress, data.get("progress").asDouble());
        }
        for (String f : List.of("result", "error", "message")) {
          if (data.has(f)) {
            d.set(f, data.get(f));
          }
        }
      }
      if (status == MeshStatus.SUCCEEDED) {
        progress = 100;
      }
      putNumber(d, "progress", progress);
      if (kv.putIfStatus(key, next, current)) {
        return Optional.of(new MeshEvent(id, MeshEvent.STATUS, statusEvent(next)));
      }
      // 409: someone else wrote first; read again and decide again
    }
    throw new ApiException(503, "unavailable", "too much write contention on envelope " + id);
  }

  private static void putNumber(ObjectNode o, String f, double v) {
    if (v == Math.rint(v)) {
      o.put(f, (long) v);
    } else {
      o.put(f, v);
    }
  }

  /**
   * SSE {@code status} data: {@code {status, actor, progress}} plus result/error/message when set.
   */
  static ObjectNode statusEvent(JsonNode stored) {
    JsonNode d = stored.path("data");
    ObjectNode e = JsonNodeFactory.instance.objectNode();
    e.put("status", stored.path("status").asText());
    e.set("actor", d.hasNonNull("current_actor") ? d.get("current_actor") : d.get("actor"));
    e.set(
        "progress", d.has("progress") ? d.get("progress") : JsonNodeFactory.instance.numberNode(0));
    for (String f : List.of("result", "error", "message")) {
      if (d.has(f)) {
        e.set(f, d.get(f));
      }
    }
    return e;
  }

  public void cancel(String id) {
    ObjectNode data = JsonNodeFactory.instance.objectNode();
    data.put("message", "canceled by client");
    applyStatus(id, MeshStatus.CANCELED, data);
  }

  // ---- events from sidecars

  /** Validates and applies {@code {type: status, status, data}} or {@code {type: fly, data}}. */
  public void publishEvent(String id, JsonNode body) {
    acceptEvent(id, body).ifPresent(bus::publish);
  }

  /**
   * {@link #publishEvent} up to the fan-out: validates, stores a status change, and returns the
   * event still to publish (a FLY event, or an applied status), empty for a stale status. The
   * caller publishes it with {@link EventBus#publish} once it has answered the sidecar.
   */
  Optional<MeshEvent> acceptEvent(String id, JsonNode body) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("the body must be a JSON object {type, ...}");
    }
    String type = body.path("type").asText("");
    switch (type) {
      case "status" -> {
        JsonNode s = body.get("status");
        MeshStatus status =
            s != null && s.isTextual() ? MeshStatus.find(s.asText()).orElse(null) : null;
        if (status == null) {
          throw ApiException.badRequest("'status' must be one of " + MeshStatus.ALL);
        }
        JsonNode data = body.get("data");
        if (data != null && !data.isNull() && !data.isObject()) {
          throw ApiException.badRequest("'data' must be an object {actor, progress}");
        }
        ObjectNode d =
            data == null || data.isNull()
                ? JsonNodeFactory.instance.objectNode()
                : (ObjectNode) data;
        if (d.has("actor") && !d.get("actor").isTextual()) {
          throw ApiException.badRequest("'data.actor' must be a string");
        }
        if (d.has("progress")
            && (!d.get("progress").isNumber()
                || d.get("progress").asDouble() < 0
                || d.get("progress").asDouble() > 100)) {
          throw ApiException.badRequest("'data.progress' must be a number from 0 to 100");
        }
        rejectNulCharacters(d, "data");
        return writeStatus(id, status, d);
      }
      case "fly" -> {
        JsonNode data = body.get("data");
        if (data == null || !data.isObject()) {
          throw ApiException.badRequest("'data' of a fly event must be an object");
        }
        if (find(id).isEmpty()) {
          throw MeshService.envelopeNotFound(id);
        }
        return Optional.of(new MeshEvent(id, MeshEvent.FLY, data));
      }
      default -> throw ApiException.badRequest("'type' must be 'status' or 'fly'");
    }
  }

  // ---- deadline backstop

  /**
   * Fails every non-terminal envelope whose deadline has passed. Safe with several replicas: each
   * move is a conditional PUT, so only one replica wins and publishes; the others see a stale
   * update.
   */
  public int failOverdue(int batch) {
    ObjectNode q = JsonNodeFactory.instance.objectNode();
    q.put("prefix", KEY_PREFIX);
    ObjectNode filter = q.putObject("filter");
    var in = filter.putObject("status").putArray("$in");
    MeshStatus.NON_TERMINAL.forEach(s -> in.add(s.wire()));
    filter.putObject("deadline_at").put("$lt", ts(clock.get()));
    q.putArray("sort").add("deadline_at");
    q.put("limit", batch);
    int failed = 0;
    List<String> ids = new ArrayList<>();
    kv.query(q).values().forEach(v -> ids.add(v.path("id").asText()));
    for (String id : ids) {
      ObjectNode data = JsonNodeFactory.instance.objectNode();
      data.put("actor", "mesh-api");
      data.put("error", "deadline exceeded");
      try {
        if (applyStatus(id, MeshStatus.FAILED, data) == Outcome.APPLIED) {
          failed++;
        }
      } catch (ApiException e) {
        LOG.debug("deadline backstop skipped {}: {}", id, e.getMessage());
      }
    }
    return failed;
  }

  static boolean validId(String id) {
    return id != null
        && !id.isEmpty()
        && id.length() <= 200
        && MeshConfig.TOPIC_PART.matcher(id).matches();
  }

  /** 404 for an envelope id mesh-api does not know. */
  static ApiException envelopeNotFound(String id) {
    return ApiException.notFound("envelope '" + id + "' not found");
  }
}
