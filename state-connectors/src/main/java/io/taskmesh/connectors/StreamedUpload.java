package io.taskmesh.connectors;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A body of unknown length into S3 with one part in memory at a time. A body that ends within the
 * first part goes out as one PutObject; a longer one as a multipart upload whose completion carries
 * the write's condition, so the object changes only when the whole body arrived.
 */
final class StreamedUpload {
  private final S3Client s3;
  private final String bucket;
  private final String objectKey;
  private final int partSize;

  StreamedUpload(S3Client s3, String bucket, String objectKey, int partSize) {
    this.s3 = s3;
    this.bucket = bucket;
    this.objectKey = objectKey;
    this.partSize = partSize;
  }

  /**
   * Uploads the body in parts, or in one request when it fits in one part.
   *
   * @param single uploads a body that fitted in one part (bytes, length) and returns its entity tag
   * @return the entity tag of the written object
   */
  String run(
      InputStream body,
      boolean exclusive,
      String ifMatch,
      String contentType,
      BiFunction<byte[], Long, String> single,
      Function<SdkException, StoreException> translate) {
    byte[] part = readPart(body);
    if (part.length < partSize) {
      return single.apply(part, (long) part.length);
    }
    String uploadId;
    try {
      uploadId =
          s3.createMultipartUpload(
                  b ->
                      b.bucket(bucket)
                          .key(objectKey)
                          .contentType(
                              contentType == null || contentType.isBlank()
                                  ? "application/octet-stream"
                                  : contentType))
              .uploadId();
    } catch (SdkException e) {
      throw translate.apply(e);
    }
    try {
      List<CompletedPart> parts = new ArrayList<>();
      int number = 1;
      while (part.length > 0) {
        int partNumber = number++;
        byte[] bytes = part;
        String tag =
            s3.uploadPart(
                    b ->
                        b.bucket(bucket)
                            .key(objectKey)
                            .uploadId(uploadId)
                            .partNumber(partNumber)
                            .contentLength((long) bytes.length),
                    uncopied(bytes))
                .eTag();
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(tag).build());
        part = readPart(body);
      }
      var complete =
          CompleteMultipartUploadRequest.builder()
              .bucket(bucket)
              .key(objectKey)
              .uploadId(uploadId)
              .multipartUpload(m -> m.parts(parts));
      if (exclusive) {
        complete.ifNoneMatch("*");
      } else if (ifMatch != null) {
        complete.ifMatch(ifMatch);
      }
      return s3.completeMultipartUpload(complete.build()).eTag();
    } catch (RuntimeException e) {
      abort(uploadId);
      if (e instanceof SdkException sdk) {
        throw translate.apply(sdk);
      }
      throw e;
    }
  }

  private void abort(String uploadId) {
    try {
      s3.abortMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId));
    } catch (SdkException ignored) {
      // the backend's lifecycle rules clean up what an unreachable backend kept
    }
  }

  /**
   * The next part: up to {@code partSize} bytes, fewer only at the end of the body. Read into
   * buffers that grow with what arrives, so a small body does not cost a whole part's allocation (a
   * passthrough write of a few KiB used to zero 8 MiB).
   */
  private byte[] readPart(InputStream body) {
    try {
      return body.readNBytes(partSize);
    } catch (IOException e) {
      throw new UncheckedIOException("reading the request body", e);
    }
  }

  /** A request body on {@code bytes} without the defensive copy {@code fromBytes} makes. */
  static RequestBody uncopied(byte[] bytes) {
    return RequestBody.fromContentProvider(
        () -> new ByteArrayInputStream(bytes), bytes.length, "application/octet-stream");
  }
}
