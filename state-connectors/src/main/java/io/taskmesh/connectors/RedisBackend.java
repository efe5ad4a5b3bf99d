package io.taskmesh.connectors;

import io.taskmesh.connectors.StoreException.Kind;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Key-value connector on Redis (jedis). One key is one hash {@code STATE_PREFIX + key} with the
 * fields {@code data} (the bytes), {@code ver} (a random token, new on every write) and {@code
 * type} (the content type, when the writer sent one); an expiry on the hash is the {@code ttl}
 * attribute, and it survives rewrites as a file's extended attributes do.
 *
 * <p>Check-and-set: a read caches the key's {@code ver} (or its absence); the next write of that
 * key runs {@code WATCH key}, compares {@code ver} with the cached one and writes in {@code
 * MULTI/EXEC}. A different {@code ver}, or an {@code EXEC} aborted by a change after the {@code
 * WATCH}, is a conflict (409). A key never read is written unconditionally. Random tokens rather
 * than counters, so a key deleted and written again never matches an old read.
 */
public final class RedisBackend implements StateBackend {
  static final List<String> ATTRIBUTES = List.of("ttl");

  /** Redis's own limit for one string value; the whole value is held in memory on its way. */
  static final long MAX_VALUE_BYTES = 512L * 1024 * 1024;

  private static final byte[] DATA = bytes("data");
  private static final byte[] VERSION = bytes("ver");
  private static final byte[] TYPE = bytes("type");
  private static final String ABSENT = "";
  private static final int SCAN_COUNT = 1000;

  private final JedisPool pool;
  private final String prefix;
  private final Map<String, String> versions = new ConcurrentHashMap<>();

  RedisBackend(JedisPool pool, String prefix) {
    this.pool = pool;
    this.prefix = prefix;
  }

  public static RedisBackend create(ConnectorConfig config) {
    GenericObjectPoolConfig<Jedis> poolConfig = new GenericObjectPoolConfig<>();
    poolConfig.setMaxTotal(32);
    poolConfig.setMaxWait(Duration.ofSeconds(5));
    // a connection that outlived a restart of the server fails on borrow, not in the caller's
    // request
    poolConfig.setTestOnBorrow(true);
    int timeoutMillis = (int) Duration.ofSeconds(10).toMillis();
    return new RedisBackend(
        new JedisPool(poolConfig, config.kvstoreUrl(), timeoutMillis, timeoutMillis),
        config.prefix());
  }

  @Override
  public StoredObject read(String key) {
    byte[] k = storedKey(key);
    List<byte[]> fields = call(key, j -> j.hmget(k, DATA, TYPE, VERSION));
    byte[] data = fields.get(0);
    if (data == null) {
      versions.put(key, ABSENT); // seen absent: the next write creates only if still absent
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
    versions.put(key, fields.get(2) == null ? ABSENT : text(fields.get(2)));
    return new StoredObject(
        data.length,
        fields.get(1) == null ? null : text(fields.get(1)),
        new ByteArrayInputStream(data));
  }

  @Override
  public void write(
      String key, InputStream body, long length, boolean exclusive, String contentType) {
    byte[] k = storedKey(key);
    byte[] data = KeyRules.readAll(body, length, MAX_VALUE_BYTES);
    String seen = versions.get(key);
    boolean createOnly = exclusive || ABSENT.equals(seen);
    String expected = createOnly ? null : seen;
    String version = UUID.randomUUID().toString();
    call(
        key,
        j -> {
          j.watch(k);
          try {
            byte[] current = j.hget(k, VERSION);
            if (createOnly && j.exists(k)) {
              throw new StoreException(Kind.CONFLICT, key + ": exists");
            }
            if (expected != null && (current == null || !expected.equals(text(current)))) {
              throw new StoreException(Kind.CONFLICT, key + ": changed since read");
            }
            Transaction tx = j.multi();
            tx.hset(k, Map.of(DATA, data, VERSION, bytes(version)));
            if (contentType == null || contentType.isBlank()) {
              tx.hdel(k, TYPE);
            } else {
              tx.hset(k, TYPE, bytes(contentType));
            }
            if (tx.exec() == null) {
              throw new StoreException(Kind.CONFLICT, key + ": changed during the write");
            }
            return null;
          } finally {
            j.unwatch(); // a connection goes back to the pool without a pending WATCH
          }
        });
    versions.put(key, version);
  }

  @Override
  public Optional<Stat> stat(String key) {
    byte[] k = storedKey(key);
    return call(
        key,
        j -> {
          if (j.exists(k)) {
            return Optional.of(new Stat(j.hstrlen(k, DATA), true));
          }
          return anyUnder(j, text(k) + "/") ? Optional.of(new Stat(0, false)) : Optional.empty();
        });
  }

  private static boolean anyUnder(Jedis j, String keyPrefix) {
    ScanParams params = new ScanParams().match(glob(keyPrefix) + "*").count(SCAN_COUNT);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = j.scan(cursor, params);
      if (!page.getResult().isEmpty()) {
        return true;
      }
      cursor = page.getCursor();
    } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
    return false;
  }

  /**
   * SCAN walks the whole key space (no sorted index in Redis); fine for a mount's keys, slow on a
   * huge shared db.
   */
  @Override
  public Listing list(String listPrefix, String delimiter) {
    KeyRules.checkListPrefix(listPrefix);
    String full = prefix + listPrefix;
    SortedSet<String> keys = new TreeSet<>();
    SortedSet<String> prefixes = new TreeSet<>();
    call(
        listPrefix,
        j -> {
          ScanParams params = new ScanParams().match(glob(full) + "*").count(SCAN_COUNT);
          String cursor = ScanParams.SCAN_POINTER_START;
          do {
            ScanResult<String> page = j.scan(cursor, params, "hash");
            for (String stored : page.getResult()) {
              String key = stored.substring(prefix.length());
              String rest = key.substring(listPrefix.length());
              int cut = delimiter == null || delimiter.isEmpty() ? -1 : rest.indexOf(delimiter);
              if (cut >= 0) {
                prefixes.add(listPrefix + rest.substring(0, cut + delimiter.length()));
              } else {
                keys.add(key);
              }
            }
            cursor = page.getCursor();
          } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
          return null;
        });
    return new Listing(new ArrayList<>(keys), new ArrayList<>(prefixes));
  }

  @Override
  public void delete(String key) {
    byte[] k = storedKey(key);
    if (call(key, j -> j.del(k)) == 0) {
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
    versions.remove(key);
  }

  @Override
  public List<String> attributes(String key) {
    existing(key);
    return ATTRIBUTES;
  }

  @Override
  public String attribute(String key, String name) {
    if (!"ttl".equals(name)) {
      throw KeyRules.unknownAttribute(name, "kv", ATTRIBUTES);
    }
    byte[] k = storedKey(key);
    long ttl = call(key, j -> j.ttl(k));
    if (ttl == -2) {
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
    return String.valueOf(ttl); // seconds left, -1 for none (Redis's own convention)
  }

  @Override
  public void setAttribute(String key, String name, String value) {
    if (!"ttl".equals(name)) {
      throw KeyRules.unknownAttribute(name, "kv", ATTRIBUTES);
    }
    long seconds;
    try {
      seconds = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      seconds = 0;
    }
    if (seconds <= 0 && seconds != -1) {
      throw new StoreException(
          Kind.BAD_REQUEST,
          "ttl must be a positive number of seconds, or -1 for none; got '" + value + "'");
    }
    byte[] k = storedKey(key);
    long expiry = seconds;
    boolean found =
        call(key, j -> expiry == -1 ? j.exists(k) && j.persist(k) >= 0 : j.expire(k, expiry) == 1);
    if (!found) {
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
  }

  private void existing(String key) {
    byte[] k = storedKey(key);
    if (!call(key, j -> j.exists(k))) {
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
  }

  private byte[] storedKey(String key) {
    return bytes(KeyRules.stored(prefix, key));
  }

  /** A SCAN pattern matching {@code literal} itself: glob characters escaped. */
  static String glob(String literal) {
    StringBuilder b = new StringBuilder(literal.length() + 8);
    for (int i = 0; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        b.append('\\');
      }
      b.append(c);
    }
    return b.toString();
  }

  private <T> T call(String key, Function<Jedis, T> action) {
    try (Jedis j = pool.getResource()) {
      return action.apply(j);
    } catch (JedisException e) {
      throw translate(e, key);
    }
  }

  static StoreException translate(JedisException e, String key) {
    if (e instanceof JedisAccessControlException) {
      return new StoreException(Kind.FORBIDDEN, key + ": " + e.getMessage(), e);
    }
    if (e instanceof JedisDataException
        && e.getMessage() != null
        && e.getMessage().startsWith("WRONGTYPE")) {
      return new StoreException(
          Kind.BAD_REQUEST, key + ": not a value of this connector (a hash with field data)", e);
    }
    if (e instanceof JedisConnectionException) {
      return hasCause(e, SocketTimeoutException.class)
          ? new StoreException(Kind.TIMEOUT, key + ": backend timed out", e)
          : new StoreException(
              Kind.UNAVAILABLE, key + ": backend unreachable: " + e.getMessage(), e);
    }
    if (hasCause(e, JedisConnectionException.class)) { // the pool could not open a connection
      return new StoreException(
          Kind.UNAVAILABLE, key + ": backend unreachable: " + e.getMessage(), e);
    }
    return new StoreException(Kind.INTERNAL, key + ": " + e.getMessage(), e);
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    pool.close();
  }
}
