package io.taskmesh.connectors;

import com.google.api.gax.paging.Page;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.Credentials;
import com.google.auth.ServiceAccountSigner;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobSourceOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.Storage.SignUrlOption;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import io.taskmesh.connectors.StoreException.Kind;
import io.taskmesh.servicekit.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Blob-store connector on the Google Cloud Storage client (JSON API over HTTP). With {@code cas}
 * the generation of each read is kept and the next write of that key carries {@code
 * ifGenerationMatch} (412 -> 409); a read that found nothing makes the next write create-only
 * ({@code ifGenerationMatch=0}); a key never read is written unconditionally. Reads stream; a write
 * body goes to one object insert, so it is held in memory (up to {@link #MAX_WRITE_BYTES}; the blob
 * types are buffered types, whose writes carry a length).
 */
public final class GcsBackend implements StateBackend {
  static final List<String> ATTRIBUTES =
      List.of("url", "signed_url", "generation", "content_type", "metageneration");
  static final long MAX_WRITE_BYTES = 64L * 1024 * 1024;
  static final String DEFAULT_HOST = "https://storage.googleapis.com";

  /**
   * Cached in place of a generation when a read found no object: GCS's "must not exist"
   * precondition.
   */
  private static final long ABSENT = 0L;

  /**
   * Bytes read before the status goes out, so a failing read answers an error status, not a cut
   * body.
   */
  private static final int FIRST_CHUNK = 64 * 1024;

  /** Busy keys (CAS loops of several writers) replace generations within milliseconds. */
  private static final int READ_ATTEMPTS = 10;

  private final Storage storage;
  private final ServiceAccountSigner signer;
  private final String host;
  private final String bucket;
  private final String prefix;
  private final boolean cas;
  private final Duration signTtl;
  private final Map<String, Long> generations = new ConcurrentHashMap<>();

  GcsBackend(
      Storage storage,
      ServiceAccountSigner signer,
      String host,
      String bucket,
      String prefix,
      boolean cas,
      Duration signTtl) {
    this.storage = storage;
    this.signer = signer;
    this.host = host;
    this.bucket = bucket;
    this.prefix = prefix;
    this.cas = cas;
    this.signTtl = signTtl;
  }

  public static GcsBackend create(ConnectorConfig config) {
    GoogleCredentials keyFile =
        config.googleCredentials() == null ? null : keyFile(config.googleCredentials());
    StorageOptions.Builder options =
        StorageOptions.http()
            // fail over to 503 within seconds rather than the client's default of retrying for 50 s
            .setRetrySettings(
                RetrySettings.newBuilder()
                    .setMaxAttempts(3)
                    .setInitialRetryDelayDuration(Duration.ofMillis(100))
                    .setMaxRetryDelayDuration(Duration.ofSeconds(1))
                    .setRetryDelayMultiplier(2.0)
                    .setTotalTimeoutDuration(Duration.ofSeconds(10))
                    .build());
    String host = DEFAULT_HOST;
    if (config.storageEmulatorHost() != null) {
      host = config.storageEmulatorHost().toString().replaceAll("/+$", "");
      // an emulator authenticates nobody; a key file, if given, still signs URLs
      options.setHost(host).setCredentials(NoCredentials.getInstance());
      options.setProjectId(config.cloudProject() == null ? "local" : config.cloudProject());
    } else {
      if (keyFile != null) {
        options.setCredentials(keyFile);
      }
      if (config.cloudProject() != null) {
        options.setProjectId(config.cloudProject());
      }
    }
    Storage storage = options.build().getService();
    Credentials clientCredentials = storage.getOptions().getCredentials();
    ServiceAccountSigner signer =
        keyFile instanceof ServiceAccountSigner s
            ? s
            : clientCredentials instanceof ServiceAccountSigner s ? s : null;
    return new GcsBackend(
        storage,
        signer,
        host,
        config.bucket(),
        config.prefix(),
        config.type() == ConnectorType.BLOB_BUFFERED_CAS,
        config.presignTtl());
  }

  private static GoogleCredentials keyFile(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return GoogleCredentials.fromStream(in);
    } catch (IOException e) {
      throw new ConfigException(
          "GOOGLE_APPLICATION_CREDENTIALS",
          "cannot read a key from " + file + ": " + e.getMessage());
    }
  }

  @Override
  public StoredObject read(String key) {
    BlobId id = blobId(key);
    for (int attempt = 1; ; attempt++) {
      Blob blob = call(key, () -> storage.get(id));
      if (blob == null) {
        if (cas) {
          generations.put(key, ABSENT); // seen absent: the next write creates only if still absent
        }
        throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
      }
      try {
        InputStream body = open(key, id, blob.getGeneration());
        if (cas) {
          generations.put(key, blob.getGeneration());
        }
        return new StoredObject(blob.getSize(), blob.getContentType(), body);
      } catch (StoreException e) {
        // replaced between the metadata and the media request: read the new generation
        if (e.kind() != Kind.CONFLICT) {
          throw e;
        }
        if (attempt == READ_ATTEMPTS) {
          throw new StoreException(
              Kind.UNAVAILABLE, key + ": replaced during each of " + READ_ATTEMPTS + " reads", e);
        }
      }
    }
  }

  /**
   * The media of exactly {@code generation}; its first chunk is fetched here so errors come before
   * the status.
   */
  private InputStream open(String key, BlobId id, long generation) {
    ReadChannel channel = storage.reader(id, BlobSourceOption.generationMatch(generation));
    InputStream media = Channels.newInputStream(channel);
    try {
      byte[] first = media.readNBytes(FIRST_CHUNK);
      return new SequenceInputStream(new ByteArrayInputStream(first), media);
    } catch (IOException e) {
      channel.close();
      throw translate(e, key);
    }
  }

  @Override
  public void write(
      String key, InputStream body, long length, boolean exclusive, String contentType) {
    BlobId id = blobId(key);
    byte[] data = KeyRules.readAll(body, length, MAX_WRITE_BYTES);
    Long seen = cas ? generations.get(key) : null;
    BlobTargetOption[] condition;
    if (exclusive || (seen != null && seen == ABSENT)) {
      condition = new BlobTargetOption[] {BlobTargetOption.doesNotExist()};
    } else if (seen != null) {
      condition = new BlobTargetOption[] {BlobTargetOption.generationMatch(seen)};
    } else {
      condition = new BlobTargetOption[0];
    }
    BlobInfo info =
        BlobInfo.newBuilder(id)
            .setContentType(
                contentType == null || contentType.isBlank()
                    ? "application/octet-stream"
                    : contentType)
            .build();
    Blob written = call(key, () -> storage.create(info, data, condition));
    if (cas) {
      generations.put(key, written.getGeneration());
    }
  }

  @Override
  public Optional<Stat> stat(String key) {
    BlobId id = blobId(key);
    Blob blob = call(key, () -> storage.get(id));
    if (blob != null) {
      return Optional.of(new Stat(blob.getSize(), true));
    }
    Page<Blob> under =
        call(
            key,
            () ->
                storage.list(
                    bucket, BlobListOption.prefix(id.getName() + "/"), BlobListOption.pageSize(1)));
    return under.getValues().iterator().hasNext()
        ? Optional.of(new Stat(0, false))
        : Optional.empty();
  }

  @Override
  public Listing list(String listPrefix, String delimiter) {
    KeyRules.checkListPrefix(listPrefix);
    List<String> keys = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    List<BlobListOption> options =
        new ArrayList<>(List.of(BlobListOption.prefix(prefix + listPrefix)));
    if (delimiter != null && !delimiter.isEmpty()) {
      options.add(BlobListOption.delimiter(delimiter));
    }
    call(
        listPrefix,
        () -> {
          for (Blob blob :
              storage.list(bucket, options.toArray(BlobListOption[]::new)).iterateAll()) {
            (blob.isDirectory() ? prefixes : keys).add(blob.getName().substring(prefix.length()));
          }
          return null;
        });
    return new Listing(keys, prefixes);
  }

  @Override
  public void delete(String key) {
    BlobId id = blobId(key);
    if (!call(key, () -> storage.delete(id))) {
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
    generations.remove(key);
  }

  @Override
  public List<String> attributes(String key) {
    existing(key);
    return ATTRIBUTES;
  }

  @Override
  public String attribute(String key, String name) {
    return switch (name) {
      case "url" -> {
        Blob blob = existing(key);
        yield host
            + "/"
            + bucket
            + "/"
            + URLEncoder.encode(blob.getName(), StandardCharsets.UTF_8)
                .replace("+", "%20")
                .replace("%2F", "/");
      }
      case "signed_url" -> signedUrl(key, existing(key));
      case "generation" -> String.valueOf(existing(key).getGeneration());
      case "content_type" -> existing(key).getContentType();
      case "metageneration" -> String.valueOf(existing(key).getMetageneration());
      default -> throw unknownAttribute(name);
    };
  }

  private String signedUrl(String key, Blob blob) {
    if (signer == null) {
      throw new StoreException(
          Kind.INTERNAL,
          key
              + ": signed_url needs service-account credentials "
              + "(GOOGLE_APPLICATION_CREDENTIALS or the workload's own)");
    }
    List<SignUrlOption> options =
        new ArrayList<>(
            List.of(
                SignUrlOption.withV4Signature(),
                SignUrlOption.signWith(signer),
                SignUrlOption.withPathStyle()));
    if (!DEFAULT_HOST.equals(host)) {
      options.add(SignUrlOption.withHostName(host));
    }
    return call(
            key,
            () ->
                storage.signUrl(
                    BlobInfo.newBuilder(blob.getBlobId()).build(),
                    signTtl.toSeconds(),
                    TimeUnit.SECONDS,
                    options.toArray(SignUrlOption[]::new)))
        .toString();
  }

  @Override
  public void setAttribute(String key, String name, String value) {
    if (!"content_type".equals(name)) {
      throw ATTRIBUTES.contains(name)
          ? new StoreException(Kind.FORBIDDEN, name + " is read-only")
          : unknownAttribute(name);
    }
    BlobId id = blobId(key);
    // a metadata patch: the generation (and so a cached CAS base) stays, the metageneration grows
    call(key, () -> storage.update(BlobInfo.newBuilder(id).setContentType(value).build()));
  }

  private static StoreException unknownAttribute(String name) {
    return KeyRules.unknownAttribute(name, "blob", ATTRIBUTES);
  }

  private Blob existing(String key) {
    BlobId id = blobId(key);
    Blob blob = call(key, () -> storage.get(id));
    if (blob == null) {
      throw new StoreException(Kind.NOT_FOUND, "no such key: " + key);
    }
    return blob;
  }

  private BlobId blobId(String key) {
    return BlobId.of(bucket, KeyRules.stored(prefix, key));
  }

  private <T> T call(String key, Supplier<T> action) {
    try {
      return action.get();
    } catch (StorageException e) {
      throw translate(e, key);
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw new StoreException(Kind.INTERNAL, key + ": " + e.getMessage(), e);
    }
  }

  static StoreException translate(Throwable error, String key) {
    StorageException e = find(error, StorageException.class);
    int code = e == null ? 0 : e.getCode();
    String message =
        key + ": " + (e == null ? error.getMessage() : "status " + code + " " + e.getMessage());
    return switch (code) {
      case 404 -> new StoreException(Kind.NOT_FOUND, message, error);
      case 409, 412 ->
          new StoreException(Kind.CONFLICT, message + " (changed since read, or exists)", error);
      case 401, 403 -> new StoreException(Kind.FORBIDDEN, message, error);
      case 400 -> new StoreException(Kind.BAD_REQUEST, message, error);
      case 413 -> new StoreException(Kind.TOO_LARGE, message, error);
      case 408, 504 -> new StoreException(Kind.TIMEOUT, message, error);
      case 503 -> new StoreException(Kind.UNAVAILABLE, message, error);
      case 0 ->
          find(error, SocketTimeoutException.class) != null
              ? new StoreException(Kind.TIMEOUT, key + ": backend timed out", error)
              : find(error, IOException.class) != null
                  ? new StoreException(
                      Kind.UNAVAILABLE, key + ": backend unreachable: " + message, error)
                  : new StoreException(Kind.INTERNAL, message, error);
      default -> new StoreException(Kind.INTERNAL, message, error);
    };
  }

  private static <T extends Throwable> T find(Throwable error, Class<T> type) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  @Override
  public void close() {
    try {
      storage.close();
    } catch (Exception ignored) {
      // nothing held that outlives the process
    }
  }
}
