package io.taskmesh.connectors;

import io.taskmesh.connectors.StoreException.Kind;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.GetUrlRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Object-store connector on the AWS SDK's blocking S3 client. Reads stream from the backend to the
 * caller; a write of known length streams into one PutObject, a chunked one into a multipart upload
 * one part at a time (never the whole object in memory). With {@code cas} the entity tag seen on
 * each read is kept and the next write of that key is conditional on it ({@code If-Match}); a key
 * never read is written unconditionally.
 */
public final class S3Backend implements StateBackend {
  /** Part size of streamed uploads; S3's minimum for all parts but the last is 5 MiB. */
  static final int PART_SIZE = 8 * 1024 * 1024;

  static final List<String> ATTRIBUTES =
      List.of("url", "presigned_url", "etag", "content_type", "version");

  /** Cached in place of an entity tag when a read found no object. */
  private static final String ABSENT = "";

  private final S3Client s3;

  /** Without retries: a request body read from the caller cannot be read a second time. */
  private final S3Client streamingPuts;

  private final S3Presigner presigner;
  private final String bucket;
  private final String prefix;
  private final boolean cas;
  private final Duration presignTtl;
  private final Map<String, String> etags = new ConcurrentHashMap<>();

  S3Backend(
      S3Client s3,
      S3Client streamingPuts,
      S3Presigner presigner,
      String bucket,
      String prefix,
      boolean cas,
      Duration presignTtl) {
    this.s3 = s3;
    this.streamingPuts = streamingPuts;
    this.presigner = presigner;
    this.bucket = bucket;
    this.prefix = prefix;
    this.cas = cas;
    this.presignTtl = presignTtl;
  }

  public static S3Backend create(ConnectorConfig config) {
    Region region = Region.of(config.region());
    AwsCredentialsProvider credentials = DefaultCredentialsProvider.builder().build();
    S3Configuration s3Config =
        S3Configuration.builder()
            // a custom endpoint (a local server) has no per-bucket host names
            .pathStyleAccessEnabled(config.endpoint() != null)
            .build();
    var clientBuilder =
        checksums(
            S3Client.builder()
                .region(region)
                .credentialsProvider(credentials)
                .serviceConfiguration(s3Config));
    var streamingBuilder =
        checksums(
            S3Client.builder()
                .region(region)
                .credentialsProvider(credentials)
                .serviceConfiguration(s3Config)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())));
    var presignerBuilder =
        S3Presigner.builder()
            .region(region)
            .credentialsProvider(credentials)
            .serviceConfiguration(s3Config);
    if (config.endpoint() != null) {
      clientBuilder.endpointOverride(config.endpoint());
      streamingBuilder.endpointOverride(config.endpoint());
      presignerBuilder.endpointOverride(config.endpoint());
    }
    return new S3Backend(
        clientBuilder.build(),
        streamingBuilder.build(),
        presignerBuilder.build(),
        config.bucket(),
        config.prefix(),
        config.type() == ConnectorType.OBJSTORE_BUFFERED_CAS,
        config.presignTtl());
  }

  /**
   * Checksums only where S3 requires them, unless the SDK's own variables ({@code
   * AWS_REQUEST_CHECKSUM_CALCULATION}, {@code AWS_RESPONSE_CHECKSUM_VALIDATION}, or their system
   * properties) say otherwise. The SDK's default ("when supported") sends a streamed body with a
   * trailing CRC32 in aws-chunked framing and checks one on every read; measured against the same
   * S3 server that was about a tenth of the connector's CPU per request (and more of moto's). The
   * body's integrity in transit is TLS's job towards a real endpoint, and S3 computes its own
   * checksum of every object it stores.
   */
  private static S3ClientBuilder checksums(S3ClientBuilder builder) {
    if (unset("AWS_REQUEST_CHECKSUM_CALCULATION", "aws.requestChecksumCalculation")) {
      builder.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED);
    }
    if (unset("AWS_RESPONSE_CHECKSUM_VALIDATION", "aws.responseChecksumValidation")) {
      builder.responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    return builder;
  }

  private static boolean unset(String variable, String property) {
    String value = System.getenv(variable);
    return (value == null || value.isBlank()) && System.getProperty(property) == null;
  }

  @Override
  public StoredObject read(String key) {
    String objectKey = objectKey(key);
    ResponseInputStream<GetObjectResponse> in;
    try {
      in =
          call(
              key,
              () -> s3.getObject(GetObjectRequest.builder().bucket(bucket).key(objectKey).build()));
    } catch (StoreException e) {
      if (cas && e.kind() == Kind.NOT_FOUND) {
        etags.put(key, ABSENT); // seen absent: the next write creates only if still absent
      }
      throw e;
    }
    GetObjectResponse meta = in.response();
    if (cas && meta.eTag() != null) {
      etags.put(key, meta.eTag());
    }
    return new StoredObject(meta.contentLength(), meta.contentType(), in);
  }

  @Override
  public void write(
      String key, InputStream body, long length, boolean exclusive, String contentType) {
    String objectKey = objectKey(key);
    String seen = cas ? etags.get(key) : null;
    boolean createOnly = exclusive || ABSENT.equals(seen);
    String ifMatch = createOnly ? null : seen;
    String newTag;
    try {
      if (length >= 0) {
        newTag =
            call(
                    key,
                    () ->
                        streamingPuts.putObject(
                            putRequest(objectKey, createOnly, ifMatch, contentType, length),
                            RequestBody.fromInputStream(body, length)))
                .eTag();
      } else {
        newTag =
            new StreamedUpload(s3, bucket, objectKey, PART_SIZE)
                .run(
                    body,
                    createOnly,
                    ifMatch,
                    contentType,
                    (first, len) ->
                        call(
                                key,
                                () ->
                                    s3.putObject(
                                        putRequest(
                                            objectKey, createOnly, ifMatch, contentType, len),
                                        StreamedUpload.uncopied(first)))
                            .eTag(),
                    e -> translate(e, key));
      }
    } catch (StoreException e) {
      if (ifMatch != null && e.kind() == Kind.NOT_FOUND) {
        throw new StoreException(Kind.CONFLICT, key + ": deleted since read", e);
      }
      throw e;
    }
    if (cas && newTag != null) {
      etags.put(key, newTag);
    }
  }

  private PutObjectRequest putRequest(
      String objectKey, boolean exclusive, String ifMatch, String contentType, long length) {
    var b =
        PutObjectRequest.builder()
            .bucket(bucket)
            .key(objectKey)
            .contentLength(length)
            .contentType(
                contentType == null || contentType.isBlank()
                    ? "application/octet-stream"
                    : contentType);
    if (exclusive) {
      b.ifNoneMatch("*");
    } else if (ifMatch != null) {
      b.ifMatch(ifMatch);
    }
    return b.build();
  }

  @Override
  public Optional<Stat> stat(String key) {
    Optional<HeadObjectResponse> head = head(key);
    if (head.isPresent()) {
      return Optional.of(new Stat(head.get().contentLength(), true));
    }
    ListObjectsV2Response under =
        call(
            key,
            () ->
                s3.listObjectsV2(
                    ListObjectsV2Request.builder()
                        .bucket(bucket)
                        .prefix(objectKey(key) + "/")
                        .maxKeys(1)
                        .build()));
    return under.keyCount() != null && under.keyCount() > 0
        ? Optional.of(new Stat(0, false))
        : Optional.empty();
  }

  private Optional<HeadObjectResponse> head(String key) {
    String objectKey = objectKey(key);
    try {
      return Optional.of(call(key, () -> s3.headObject(b -> b.bucket(bucket).key(objectKey))));
    } catch (StoreException e) {
      if (e.kind() == Kind.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private HeadObjectResponse existing(String key) {
    return head(key).orElseThrow(() -> new StoreException(Kind.NOT_FOUND, "no such key: " + key));
  }

  @Override
  public Listing list(String listPrefix, String delimiter) {
    KeyRules.checkListPrefix(listPrefix);
    List<String> keys = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    var request = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix + listPrefix);
    if (delimiter != null && !delimiter.isEmpty()) {
      request.delimiter(delimiter);
    }
    call(
        listPrefix,
        () -> {
          for (ListObjectsV2Response page : s3.listObjectsV2Paginator(request.build())) {
            page.contents().forEach(o -> keys.add(o.key().substring(prefix.length())));
            page.commonPrefixes().forEach(p -> prefixes.add(p.prefix().substring(prefix.length())));
          }
          return null;
        });
    return new Listing(keys, prefixes);
  }

  @Override
  public void delete(String key) {
    String objectKey = objectKey(key);
    existing(key); // S3 deletes absent keys silently; the runtime expects FileNotFoundError
    call(key, () -> s3.deleteObject(b -> b.bucket(bucket).key(objectKey)));
    etags.remove(key);
  }

  @Override
  public List<String> attributes(String key) {
    existing(key);
    return ATTRIBUTES;
  }

  @Override
  public String attribute(String key, String name) {
    String objectKey = objectKey(key);
    return switch (name) {
      case "url" -> {
        existing(key);
        yield s3.utilities()
            .getUrl(GetUrlRequest.builder().bucket(bucket).key(objectKey).build())
            .toString();
      }
      case "presigned_url" -> {
        existing(key);
        yield presigner
            .presignGetObject(
                p ->
                    p.signatureDuration(presignTtl)
                        .getObjectRequest(g -> g.bucket(bucket).key(objectKey)))
            .url()
            .toString();
      }
      case "etag" -> existing(key).eTag();
      case "content_type" -> existing(key).contentType();
      case "version" -> {
        String v = existing(key).versionId();
        yield v == null ? "null" : v;
      }
      default -> throw unknownAttribute(name);
    };
  }

  @Override
  public void setAttribute(String key, String name, String value) {
    if (!"content_type".equals(name)) {
      throw ATTRIBUTES.contains(name)
          ? new StoreException(Kind.FORBIDDEN, name + " is read-only")
          : unknownAttribute(name);
    }
    String objectKey = objectKey(key);
    HeadObjectResponse head = existing(key);
    // S3 changes metadata only by copying the object onto itself; the user metadata is carried over
    call(
        key,
        () ->
            s3.copyObject(
                c ->
                    c.sourceBucket(bucket)
                        .sourceKey(objectKey)
                        .destinationBucket(bucket)
                        .destinationKey(objectKey)
                        .metadataDirective(MetadataDirective.REPLACE)
                        .metadata(head.metadata())
                        .contentType(value)));
  }

  private static StoreException unknownAttribute(String name) {
    return KeyRules.unknownAttribute(name, "objstore", ATTRIBUTES);
  }

  private String objectKey(String key) {
    return KeyRules.stored(prefix, key);
  }

  private <T> T call(String key, Supplier<T> action) {
    try {
      return action.get();
    } catch (SdkException e) {
      throw translate(e, key);
    } catch (UncheckedIOException e) {
      throw new StoreException(Kind.INTERNAL, key + ": " + e.getMessage(), e);
    }
  }

  static StoreException translate(SdkException e, String key) {
    if (e instanceof S3Exception s) {
      String code = s.awsErrorDetails() == null ? "" : s.awsErrorDetails().errorCode();
      String message =
          key + ": " + (code == null || code.isEmpty() ? "status " + s.statusCode() : code);
      return switch (s.statusCode()) {
        case 404 -> new StoreException(Kind.NOT_FOUND, message, e);
        case 409, 412 ->
            new StoreException(Kind.CONFLICT, message + " (changed since read, or exists)", e);
        case 403 -> new StoreException(Kind.FORBIDDEN, message, e);
        case 400 ->
            "EntityTooLarge".equals(code)
                ? new StoreException(Kind.TOO_LARGE, message, e)
                : new StoreException(Kind.BAD_REQUEST, message, e);
        case 413 -> new StoreException(Kind.TOO_LARGE, message, e);
        case 503 -> new StoreException(Kind.UNAVAILABLE, message, e);
        default -> new StoreException(Kind.INTERNAL, message, e);
      };
    }
    if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
      return new StoreException(Kind.TIMEOUT, key + ": backend timed out", e);
    }
    if (e instanceof SdkClientException) {
      return new StoreException(
          Kind.UNAVAILABLE, key + ": backend unreachable: " + e.getMessage(), e);
    }
    return new StoreException(Kind.INTERNAL, key + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    presigner.close();
    streamingPuts.close();
    s3.close();
  }
}
