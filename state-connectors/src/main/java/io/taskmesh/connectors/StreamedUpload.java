package io.taskmesh.connectors;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
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
    byte[] part = new byte[partSize];
    int filled = fill(body, part);
    if (filled < partSize) {
      byte[] exact = Arrays.copyOf(part, filled);
      return single.apply(exact, (long) filled);
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
      while (filled > 0) {
        int partNumber = number++;
        int size = filled;
        String tag =
            s3.uploadPart(
                    b ->
                        b.bucket(bucket)
                            .key(objectKey)
                            .uploadId(uploadId)
                            .partNumber(partNumber)
                            .contentLength((long) size),
                    RequestBody.fromBytes(Arrays.copyOf(part, size)))
                .eTag();
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(tag).build());
        filled = fill(body, part);
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

  /** Reads until {@code buffer} is full or the body ends; returns the bytes read. */
  private static int fill(InputStream body, byte[] buffer) {
    int total = 0;
    try {
      while (total < buffer.length) {
        int n = body.read(buffer, total, buffer.length - total);
        if (n < 0) {
          break;
        }
        total += n;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the request body", e);
    }
    return total;
  }
}
