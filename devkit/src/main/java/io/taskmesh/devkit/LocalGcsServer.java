package io.taskmesh.devkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;

/**
 * A Google Cloud Storage JSON API server, in memory, implementing exactly the calls the blob
 * connectors make: object insert ({@code uploadType=multipart}) with {@code ifGenerationMatch} (0 =
 * must not exist), object get (metadata, or media with {@code alt=media}, ranges and generation
 * preconditions), list with prefix, delimiter and pages, delete, metadata patch (bumps the
 * metageneration), and the V4-signed download URL, whose signature it verifies with the signer's
 * public key. No GCS emulator installs here, so this is the blob connectors' test backend and
 * {@code ./taskmesh dev}'s local blob store; {@code LocalGcsServerTest} checks it against the
 * official client so that it cannot drift from the real API. A request outside these answers 501
 * and is recorded in {@link #unhandled()}. It lives in devkit, beside the local Kafka and Postgres,
 * so that dev can run it without shipping it in the connectors' jar: it is no production store
 * (nothing persists, one lock for all writes).
 */
public final class LocalGcsServer implements AutoCloseable {
  /** Kept entries of the request and unhandled logs (a long dev session must not grow them). */
  private static final int LOG_LIMIT = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ISO_INSTANT;
  private static final DateTimeFormatter GOOG_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  // bytes carried from one side to the other, never compared or used as a key
  @SuppressWarnings("ArrayRecordComponent")
  public record Stored(
      byte[] data,
      long generation,
      long metageneration,
      String contentType,
      Map<String, String> metadata,
      Instant created,
      Instant updated) {}

  private final HttpServer http;
  private final Map<String, NavigableMap<String, Stored>> buckets = new ConcurrentHashMap<>();

  /** Generations grow over the whole server, as GCS's (microsecond timestamps) do. */
  private final AtomicLong generations = new AtomicLong(1_700_000_000_000_000L);

  private final List<String> unhandled = new CopyOnWriteArrayList<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile PublicKey signer;

  public LocalGcsServer() throws IOException {
    this(0);
  }

  /** On {@code port} (0: any free one); a test restarts a backend on the port it had. */
  public LocalGcsServer(int port) throws IOException {
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    http.setExecutor(Executors.newFixedThreadPool(8));
    http.createContext("/", this::handle);
    http.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
  }

  public void createBucket(String name) {
    buckets.putIfAbsent(name, new TreeMap<>());
  }

  /** Signed URLs are accepted when signed by the private half of {@code key}. */
  public void trustSigner(PublicKey key) {
    signer = key;
  }

  private static void keepBounded(List<String> log) {
    while (log.size() >= LOG_LIMIT) {
      log.remove(0);
    }
  }

  public List<String> unhandled() {
    return unhandled;
  }

  /** "METHOD path?query" of every request, in order. */
  public List<String> requests() {
    return requests;
  }

  public Stored object(String bucket, String name) {
    return bucket(bucket).get(name);
  }

  /** Writes as another client would: a new generation. */
  public synchronized Stored put(String bucket, String name, byte[] data) {
    Instant now = Instant.now();
    Stored s =
        new Stored(
            data, generations.incrementAndGet(), 1, "application/octet-stream", Map.of(), now, now);
    bucket(bucket).put(name, s);
    return s;
  }

  public synchronized void remove(String bucket, String name) {
    bucket(bucket).remove(name);
  }

  private NavigableMap<String, Stored> bucket(String name) {
    NavigableMap<String, Stored> b = buckets.get(name);
    if (b == null) {
      throw new HttpError(404, "notFound", "bucket " + name + " not found");
    }
    return b;
  }

  private static final class HttpError extends RuntimeException {
    final int status;
    final String reason;

    HttpError(int status, String reason, String message) {
      super(message);
      this.status = status;
      this.reason = reason;
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    String rawPath = ex.getRequestURI().getRawPath();
    String rawQuery = ex.getRequestURI().getRawQuery();
    keepBounded(requests);
    requests.add(ex.getRequestMethod() + " " + rawPath + (rawQuery == null ? "" : "?" + rawQuery));
    Map<String, String> query = query(rawQuery);
    if (rawPath.startsWith("/download/storage/v1/") && "media".equals(query.get("alt"))) {
      rawPath =
          rawPath.substring("/download".length()); // the client reads media from the download path
    }
    String[] parts = rawPath.split("/", -1);
    try {
      // the JSON API client tunnels PATCH through POST (its HTTP transport has no PATCH)
      String override = ex.getRequestHeaders().getFirst("X-HTTP-Method-Override");
      String method = override != null ? override : ex.getRequestMethod();
      if (rawPath.matches("/upload/storage/v1/b/[^/]+/o")
          && method.equals("POST")
          && "multipart".equals(query.get("uploadType"))) {
        insert(ex, decode(parts[5]), query);
      } else if (rawPath.matches("/storage/v1/b/[^/]+/o") && method.equals("GET")) {
        list(ex, decode(parts[4]), query);
      } else if (rawPath.matches("/storage/v1/b/[^/]+/o/[^/]+")) {
        String bucket = decode(parts[4]);
        String name = decode(parts[6]);
        switch (method) {
          case "GET" -> {
            if ("media".equals(query.get("alt"))) {
              media(ex, bucket, name, query);
            } else {
              sendJson(ex, 200, resource(bucket, name, current(bucket, name, query)));
            }
          }
          case "DELETE" -> delete(ex, bucket, name, query);
          case "PATCH" -> patch(ex, bucket, name, query);
          default -> notHandled(ex);
        }
      } else if (method.equals("GET")
          && query.containsKey("X-Goog-Signature")
          && parts.length >= 3) {
        signedDownload(
            ex,
            decode(parts[1]),
            decode(String.join("/", Arrays.copyOfRange(parts, 2, parts.length))),
            rawQuery);
      } else {
        notHandled(ex);
      }
    } catch (HttpError e) {
      error(ex, e.status, e.reason, e.getMessage());
    } catch (RuntimeException e) {
      error(ex, 500, "backendError", String.valueOf(e));
    } finally {
      ex.close();
    }
  }

  private void notHandled(HttpExchange ex) throws IOException {
    keepBounded(unhandled);
    unhandled.add(ex.getRequestMethod() + " " + ex.getRequestURI());
    error(ex, 501, "notImplemented", "not implemented by the test server: " + ex.getRequestURI());
  }

  /** The generation preconditions of GCS: ifGenerationMatch=0 means "must not exist". */
  private static void checkPreconditions(Stored current, Map<String, String> query) {
    String match = query.get("ifGenerationMatch");
    if (match != null) {
      long expected = Long.parseLong(match);
      boolean ok =
          expected == 0 ? current == null : current != null && current.generation() == expected;
      if (!ok) {
        throw new HttpError(
            412,
            "conditionNotMet",
            "At least one of the pre-conditions you specified did not hold.");
      }
    }
    String metaMatch = query.get("ifMetagenerationMatch");
    if (metaMatch != null
        && (current == null || current.metageneration() != Long.parseLong(metaMatch))) {
      throw new HttpError(
          412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
    }
  }

  private synchronized Stored current(String bucket, String name, Map<String, String> query) {
    Stored s = bucket(bucket).get(name);
    if (s == null
        || (query.containsKey("generation")
            && Long.parseLong(query.get("generation")) != s.generation())) {
      throw new HttpError(404, "notFound", "No such object: " + bucket + "/" + name);
    }
    checkPreconditions(s, query);
    return s;
  }

  private void insert(HttpExchange ex, String bucket, Map<String, String> query)
      throws IOException {
    byte[] body = body(ex);
    String contentType = ex.getRequestHeaders().getFirst("Content-Type");
    String boundary = contentType.replaceAll(".*boundary=\"?([^\";]+)\"?.*", "$1");
    List<byte[]> multipart = multipart(body, boundary);
    if (multipart.size() != 2) {
      throw new HttpError(
          400,
          "invalid",
          "multipart upload needs metadata and media, got " + multipart.size() + " parts");
    }
    JsonNode meta = JSON.readTree(partBody(multipart.get(0)));
    byte[] data = partBody(multipart.get(1));
    String name = meta.path("name").asText(query.get("name"));
    if (name == null || name.isEmpty()) {
      throw new HttpError(400, "required", "Required object name");
    }
    checkHash(meta, data);
    Stored stored;
    synchronized (this) {
      NavigableMap<String, Stored> b = bucket(bucket);
      checkPreconditions(b.get(name), query);
      Instant now = Instant.now();
      Map<String, String> metadata = new LinkedHashMap<>();
      meta.path("metadata")
          .properties()
          .iterator()
          .forEachRemaining(e -> metadata.put(e.getKey(), e.getValue().asText()));
      String type =
          meta.hasNonNull("contentType")
              ? meta.get("contentType").asText()
              : partContentType(multipart.get(1));
      stored = new Stored(data, generations.incrementAndGet(), 1, type, metadata, now, now);
      b.put(name, stored);
    }
    sendJson(ex, 200, resource(bucket, name, stored));
  }

  /** GCS rejects an upload whose declared checksum does not match the bytes. */
  private static void checkHash(JsonNode meta, byte[] data) {
    if (meta.hasNonNull("crc32c") && !meta.get("crc32c").asText().equals(crc32c(data))) {
      throw new HttpError(400, "invalid", "Provided CRC32C does not match the data");
    }
    if (meta.hasNonNull("md5Hash") && !meta.get("md5Hash").asText().equals(md5(data))) {
      throw new HttpError(400, "invalid", "Provided MD5 hash does not match the data");
    }
  }

  private void media(HttpExchange ex, String bucket, String name, Map<String, String> query)
      throws IOException {
    Stored s = current(bucket, name, query);
    byte[] data = s.data();
    int from = 0;
    int to = data.length - 1;
    String range = ex.getRequestHeaders().getFirst("Range");
    boolean partial = false;
    if (range != null && range.startsWith("bytes=")) {
      String[] fromTo = range.substring(6).split("-", -1);
      from = Integer.parseInt(fromTo[0]);
      if (!fromTo[1].isEmpty()) {
        to = Math.min(to, Integer.parseInt(fromTo[1]));
      }
      if (from >= data.length && data.length > 0) {
        ex.getResponseHeaders().set("Content-Range", "bytes */" + data.length);
        throw new HttpError(
            416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied.");
      }
      partial = data.length > 0 && (from > 0 || to < data.length - 1);
    }
    var h = ex.getResponseHeaders();
    h.set("Content-Type", s.contentType());
    h.set("x-goog-generation", String.valueOf(s.generation()));
    h.set("x-goog-metageneration", String.valueOf(s.metageneration()));
    h.set("x-goog-stored-content-length", String.valueOf(data.length));
    h.set("x-goog-stored-content-encoding", "identity");
    h.set("x-goog-hash", "crc32c=" + crc32c(data) + ",md5=" + md5(data));
    h.set("ETag", etag(s));
    int length = Math.max(0, to - from + 1);
    if (partial) {
      h.set("Content-Range", "bytes " + from + "-" + to + "/" + data.length);
    }
    ex.sendResponseHeaders(partial ? 206 : 200, length == 0 ? -1 : length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(data, from, length);
    }
  }

  private void list(HttpExchange ex, String bucket, Map<String, String> query) throws IOException {
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = query.get("delimiter");
    int max = query.containsKey("maxResults") ? Integer.parseInt(query.get("maxResults")) : 1000;
    String after = query.get("pageToken");
    List<ObjectNode> items = new ArrayList<>();
    TreeSet<String> prefixes = new TreeSet<>();
    String last = null;
    boolean more = false;
    synchronized (this) {
      NavigableMap<String, Stored> b = bucket(bucket);
      for (Map.Entry<String, Stored> e : (after == null ? b : b.tailMap(after, false)).entrySet()) {
        String name = e.getKey();
        if (!name.startsWith(prefix)
            || (after != null
                && after.endsWith(delimiter == null ? "\0" : delimiter)
                && name.startsWith(after))) {
          continue;
        }
        String rest = name.substring(prefix.length());
        int cut = delimiter == null || delimiter.isEmpty() ? -1 : rest.indexOf(delimiter);
        String entry = cut >= 0 ? prefix + rest.substring(0, cut + delimiter.length()) : name;
        if (entry.equals(last)) {
          continue; // a further name under a prefix already given
        }
        if (items.size() + prefixes.size() == max) {
          more = true;
          break;
        }
        if (cut >= 0) {
          prefixes.add(entry);
        } else {
          items.add(resource(bucket, name, e.getValue()));
        }
        last = entry;
      }
    }
    ObjectNode page = JSON.createObjectNode().put("kind", "storage#objects");
    if (!prefixes.isEmpty()) {
      prefixes.forEach(page.putArray("prefixes")::add);
    }
    if (!items.isEmpty()) {
      page.putArray("items").addAll(items);
    }
    if (more) {
      page.put("nextPageToken", last);
    }
    sendJson(ex, 200, page);
  }

  private void delete(HttpExchange ex, String bucket, String name, Map<String, String> query)
      throws IOException {
    synchronized (this) {
      current(bucket, name, query);
      bucket(bucket).remove(name);
    }
    ex.sendResponseHeaders(204, -1);
  }

  private void patch(HttpExchange ex, String bucket, String name, Map<String, String> query)
      throws IOException {
    JsonNode change = JSON.readTree(body(ex));
    Stored updated;
    synchronized (this) {
      Stored s = current(bucket, name, query);
      Map<String, String> metadata = new LinkedHashMap<>(s.metadata());
      change
          .path("metadata")
          .properties()
          .iterator()
          .forEachRemaining(
              e -> {
                if (e.getValue().isNull()) {
                  metadata.remove(e.getKey());
                } else {
                  metadata.put(e.getKey(), e.getValue().asText());
                }
              });
      String type =
          change.hasNonNull("contentType") ? change.get("contentType").asText() : s.contentType();
      updated =
          new Stored(
              s.data(),
              s.generation(),
              s.metageneration() + 1,
              type,
              metadata,
              s.created(),
              Instant.now());
      bucket(bucket).put(name, updated);
    }
    sendJson(ex, 200, resource(bucket, name, updated));
  }

  /**
   * A V4-signed GET (path style): the signature must verify with the trusted key and the URL must
   * not have expired.
   */
  private void signedDownload(HttpExchange ex, String bucket, String name, String rawQuery)
      throws IOException {
    Map<String, String> q = query(rawQuery);
    if (signer == null || !"GOOG4-RSA-SHA256".equals(q.get("X-Goog-Algorithm"))) {
      throw new HttpError(403, "accessDenied", "no trusted signer, or not a V4 RSA signature");
    }
    Instant signedAt = GOOG_DATE.parse(q.get("X-Goog-Date"), Instant::from);
    if (Instant.now().isAfter(signedAt.plusSeconds(Long.parseLong(q.get("X-Goog-Expires"))))) {
      throw new HttpError(400, "ExpiredToken", "Request has expired");
    }
    String canonicalQuery =
        String.join(
            "&",
            Arrays.stream(rawQuery.split("&"))
                .filter(p -> !p.startsWith("X-Goog-Signature="))
                .sorted()
                .toList());
    String canonicalRequest =
        "GET\n"
            + ex.getRequestURI().getRawPath()
            + "\n"
            + canonicalQuery
            + "\n"
            + "host:"
            + ex.getRequestHeaders().getFirst("Host")
            + "\n\nhost\nUNSIGNED-PAYLOAD";
    String credential = decode(q.get("X-Goog-Credential"));
    String scope = credential.substring(credential.indexOf('/') + 1);
    String toSign =
        "GOOG4-RSA-SHA256\n"
            + q.get("X-Goog-Date")
            + "\n"
            + scope
            + "\n"
            + sha256Hex(canonicalRequest);
    try {
      Signature rsa = Signature.getInstance("SHA256withRSA");
      rsa.initVerify(signer);
      rsa.update(toSign.getBytes(StandardCharsets.UTF_8));
      if (!rsa.verify(HexFormat.of().parseHex(q.get("X-Goog-Signature")))) {
        throw new HttpError(403, "SignatureDoesNotMatch", "The request signature does not match");
      }
    } catch (GeneralSecurityException e) {
      throw new HttpError(403, "SignatureDoesNotMatch", e.getMessage());
    }
    Stored s;
    synchronized (this) {
      s = bucket(bucket).get(name);
    }
    if (s == null) {
      throw new HttpError(404, "NoSuchKey", "The specified key does not exist.");
    }
    ex.getResponseHeaders().set("Content-Type", s.contentType());
    ex.sendResponseHeaders(200, s.data().length == 0 ? -1 : s.data().length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(s.data());
    }
  }

  private ObjectNode resource(String bucket, String name, Stored s) {
    String base = endpoint() + "/storage/v1/b/" + bucket + "/o/" + encode(name);
    ObjectNode o =
        JSON.createObjectNode()
            .put("kind", "storage#object")
            .put("id", bucket + "/" + name + "/" + s.generation())
            .put("selfLink", base)
            .put(
                "mediaLink",
                endpoint()
                    + "/download/storage/v1/b/"
                    + bucket
                    + "/o/"
                    + encode(name)
                    + "?generation="
                    + s.generation()
                    + "&alt=media")
            .put("name", name)
            .put("bucket", bucket)
            .put("generation", String.valueOf(s.generation()))
            .put("metageneration", String.valueOf(s.metageneration()))
            .put("contentType", s.contentType())
            .put("storageClass", "STANDARD")
            .put("size", String.valueOf(s.data().length))
            .put("md5Hash", md5(s.data()))
            .put("crc32c", crc32c(s.data()))
            .put("etag", etag(s))
            .put("timeCreated", RFC3339.format(s.created()))
            .put("updated", RFC3339.format(s.updated()));
    if (!s.metadata().isEmpty()) {
      ObjectNode m = o.putObject("metadata");
      s.metadata().forEach(m::put);
    }
    return o;
  }

  private static String etag(Stored s) {
    return Base64.getEncoder()
        .encodeToString(
            (s.generation() + "/" + s.metageneration()).getBytes(StandardCharsets.UTF_8));
  }

  private static void error(HttpExchange ex, int status, String reason, String message)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error").put("code", status).put("message", message);
    error
        .putArray("errors")
        .addObject()
        .put("domain", "global")
        .put("reason", reason)
        .put("message", message);
    sendJson(ex, status, body);
  }

  private static void sendJson(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static byte[] body(HttpExchange ex) throws IOException {
    InputStream in = ex.getRequestBody();
    if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
      in = new GZIPInputStream(in);
    }
    return in.readAllBytes();
  }

  /** The parts of a multipart/related body, each with its headers. */
  private static List<byte[]> multipart(byte[] body, String boundary) {
    byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.UTF_8);
    List<byte[]> parts = new ArrayList<>();
    int at = indexOf(body, delimiter, 0);
    while (at >= 0) {
      int start = at + delimiter.length;
      if (start + 2 <= body.length && body[start] == '-' && body[start + 1] == '-') {
        break; // closing delimiter
      }
      start += 2; // CRLF after the delimiter
      int next = indexOf(body, delimiter, start);
      if (next < 0) {
        throw new HttpError(400, "invalid", "unterminated multipart body");
      }
      parts.add(Arrays.copyOfRange(body, start, next - 2)); // CRLF before the next delimiter
      at = next;
    }
    return parts;
  }

  private static byte[] partBody(byte[] part) {
    int split = indexOf(part, "\r\n\r\n".getBytes(StandardCharsets.UTF_8), 0);
    return Arrays.copyOfRange(part, split + 4, part.length);
  }

  private static String partContentType(byte[] part) {
    int split = indexOf(part, "\r\n\r\n".getBytes(StandardCharsets.UTF_8), 0);
    for (String line : new String(part, 0, split, StandardCharsets.UTF_8).split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-type:")) {
        return line.substring(13).trim();
      }
    }
    return "application/octet-stream";
  }

  private static int indexOf(byte[] data, byte[] needle, int from) {
    outer:
    for (int i = from; i <= data.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (data[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new LinkedHashMap<>();
    if (raw != null && !raw.isEmpty()) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        q.put(
            decode(eq < 0 ? pair : pair.substring(0, eq)),
            eq < 0 ? "" : decode(pair.substring(eq + 1)));
      }
    }
    return q;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String crc32c(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return Base64.getEncoder()
        .encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }

  private static String md5(byte[] data) {
    return Base64.getEncoder().encodeToString(digest("MD5", data));
  }

  private static String sha256Hex(String s) {
    return HexFormat.of().formatHex(digest("SHA-256", s.getBytes(StandardCharsets.UTF_8)));
  }

  private static byte[] digest(String algorithm, byte[] data) {
    try {
      return MessageDigest.getInstance(algorithm).digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    http.stop(0);
    ((ExecutorService) http.getExecutor()).shutdownNow();
  }

  /**
   * {@code LocalGcsServer <port> [bucket...]}: serves on 127.0.0.1:port (0: any) with these buckets
   * until killed, and prints its endpoint (the runtime's pytest runs it as a child process).
   */
  public static void main(String[] args) throws IOException {
    if (args.length < 1 || !args[0].matches("\\d{1,5}")) {
      System.err.println("usage: LocalGcsServer <port> [bucket...]");
      System.exit(2);
    }
    LocalGcsServer server = new LocalGcsServer(Integer.parseInt(args[0]));
    for (int i = 1; i < args.length; i++) {
      server.createBucket(args[i]);
    }
    System.out.println(server.endpoint());
    System.out.flush();
  }
}
