package io.taskmesh.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.taskmesh.devkit.LocalGcsServer;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The blob connectors' test server driven by the official google-cloud-storage client, call by call
 * as the connector makes them: if the client's requests or its reading of the answers change, this
 * fails before any connector test relies on the server. Runs in the unit-test phase, so it comes
 * before the ITs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalGcsServerTest {
  private static final String BUCKET = "fake-check";
  private static LocalGcsServer server;
  private static Storage storage;
  private static TestServiceAccount account;

  @BeforeAll
  static void start() throws Exception {
    server = new LocalGcsServer();
    server.createBucket(BUCKET);
    account = new TestServiceAccount();
    server.trustSigner(account.publicKey());
    storage =
        StorageOptions.http()
            .setHost(server.endpoint().toString())
            .setProjectId("local-project")
            .setCredentials(NoCredentials.getInstance())
            .build()
            .getService();
  }

  @AfterAll
  static void stop() throws Exception {
    storage.close();
    server.close();
  }

  @AfterEach
  void everyRequestWasOneTheServerImplements() {
    List<String> unhandled = List.copyOf(server.unhandled());
    server.unhandled().clear();
    assertThat(unhandled).isEmpty();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void insertWithGenerationPreconditions() {
    BlobInfo info =
        BlobInfo.newBuilder(BlobId.of(BUCKET, "pre/a b.txt")).setContentType("text/plain").build();
    Blob created = storage.create(info, utf8("one"), BlobTargetOption.doesNotExist());
    assertThat(created.getGeneration()).isPositive();
    assertThat(created.getMetageneration()).isEqualTo(1L);
    assertThat(created.getSize()).isEqualTo(3L);
    assertThat(created.getContentType()).isEqualTo("text/plain");
    assertThat(server.object(BUCKET, "pre/a b.txt").data()).isEqualTo(utf8("one"));

    assertThatThrownBy(() -> storage.create(info, utf8("two"), BlobTargetOption.doesNotExist()))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412));
    Blob second =
        storage.create(
            info, utf8("two"), BlobTargetOption.generationMatch(created.getGeneration()));
    assertThat(second.getGeneration()).isGreaterThan(created.getGeneration());
    assertThatThrownBy(
            () ->
                storage.create(
                    info, utf8("three"), BlobTargetOption.generationMatch(created.getGeneration())))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412));
    Blob unconditional = storage.create(info, utf8("four"));
    assertThat(unconditional.getGeneration()).isGreaterThan(second.getGeneration());
    assertThat(server.object(BUCKET, "pre/a b.txt").data()).isEqualTo(utf8("four"));
  }

  @Test
  void metadataAndMediaAtAGeneration() throws Exception {
    byte[] big = new byte[5 * 1024 * 1024 + 17]; // more than one of the reader's chunks
    new Random(3).nextBytes(big);
    Blob written =
        storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, "media/big.bin")).build(), big);
    Blob meta = storage.get(BlobId.of(BUCKET, "media/big.bin"));
    assertThat(meta.getGeneration()).isEqualTo(written.getGeneration());
    assertThat(meta.getSize()).isEqualTo(big.length);
    assertThat(storage.get(BlobId.of(BUCKET, "media/absent"))).isNull();

    try (ReadChannel reader =
            storage.reader(
                BlobId.of(BUCKET, "media/big.bin"),
                BlobSourceOption.generationMatch(meta.getGeneration()));
        InputStream in = Channels.newInputStream(reader)) {
      assertThat(in.readAllBytes()).isEqualTo(big);
    }
    assertThat(storage.readAllBytes(BlobId.of(BUCKET, "media/big.bin"))).isEqualTo(big);

    storage.create(
        BlobInfo.newBuilder(BlobId.of(BUCKET, "media/big.bin")).build(), utf8("replaced"));
    try (ReadChannel stale =
            storage.reader(
                BlobId.of(BUCKET, "media/big.bin"),
                BlobSourceOption.generationMatch(meta.getGeneration()));
        InputStream in = Channels.newInputStream(stale)) {
      assertThatThrownBy(in::read)
          .satisfies(e -> assertThat(rootStorageException(e).getCode()).isEqualTo(412));
    }

    storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, "media/empty")).build(), new byte[0]);
    try (ReadChannel reader = storage.reader(BlobId.of(BUCKET, "media/empty"));
        InputStream in = Channels.newInputStream(reader)) {
      assertThat(in.readAllBytes()).isEmpty();
    }
  }

  private static StorageException rootStorageException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StorageException s) {
        return s;
      }
    }
    throw new AssertionError("no StorageException in " + e);
  }

  @Test
  void listWithPrefixDelimiterAndPages() {
    for (String name :
        List.of("ls/a.txt", "ls/b.txt", "ls/sub/c.txt", "ls/sub/d/e.txt", "ls/zz/f", "other/x")) {
      storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, name)).build(), utf8(name));
    }
    List<String> files = new ArrayList<>();
    List<String> dirs = new ArrayList<>();
    for (Blob b :
        storage
            .list(BUCKET, BlobListOption.prefix("ls/"), BlobListOption.delimiter("/"))
            .iterateAll()) {
      (b.isDirectory() ? dirs : files).add(b.getName());
    }
    assertThat(files).containsExactly("ls/a.txt", "ls/b.txt");
    assertThat(dirs).containsExactly("ls/sub/", "ls/zz/");

    List<String> paged = new ArrayList<>();
    storage
        .list(BUCKET, BlobListOption.prefix("ls/"), BlobListOption.pageSize(2))
        .iterateAll()
        .forEach(b -> paged.add(b.getName()));
    assertThat(paged)
        .containsExactly("ls/a.txt", "ls/b.txt", "ls/sub/c.txt", "ls/sub/d/e.txt", "ls/zz/f");
    List<String> pagedDirs = new ArrayList<>();
    storage
        .list(
            BUCKET,
            BlobListOption.prefix("ls/"),
            BlobListOption.delimiter("/"),
            BlobListOption.pageSize(1))
        .iterateAll()
        .forEach(b -> pagedDirs.add(b.getName()));
    assertThat(pagedDirs).containsExactlyInAnyOrder("ls/a.txt", "ls/b.txt", "ls/sub/", "ls/zz/");
    assertThat(storage.list(BUCKET, BlobListOption.prefix("nothing/")).getValues()).isEmpty();
  }

  @Test
  void deleteAndPatchMetadata() {
    BlobId id = BlobId.of(BUCKET, "patch/x");
    Blob created =
        storage.create(
            BlobInfo.newBuilder(id).setContentType("application/octet-stream").build(), utf8("x"));
    Blob patched = storage.update(BlobInfo.newBuilder(id).setContentType("text/csv").build());
    assertThat(patched.getContentType()).isEqualTo("text/csv");
    assertThat(patched.getMetageneration()).isEqualTo(2L);
    assertThat(patched.getGeneration())
        .as("a metadata change keeps the generation")
        .isEqualTo(created.getGeneration());
    assertThat(server.object(BUCKET, "patch/x").data()).isEqualTo(utf8("x"));
    assertThatThrownBy(
            () ->
                storage.update(
                    BlobInfo.newBuilder(BlobId.of(BUCKET, "patch/absent"))
                        .setContentType("a/b")
                        .build()))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(404));

    assertThat(storage.delete(id)).isTrue();
    assertThat(storage.delete(id)).isFalse();
    assertThat(storage.get(id)).isNull();
  }

  @Test
  void v4SignedUrlIsVerifiedWithTheSignersPublicKey() throws Exception {
    storage.create(
        BlobInfo.newBuilder(BlobId.of(BUCKET, "signed/s.txt")).setContentType("text/plain").build(),
        utf8("signed body"));
    URL url =
        storage.signUrl(
            BlobInfo.newBuilder(BlobId.of(BUCKET, "signed/s.txt")).build(),
            90,
            TimeUnit.SECONDS,
            SignUrlOption.withV4Signature(),
            SignUrlOption.signWith(account.credentials()),
            SignUrlOption.withHostName(server.endpoint().toString()),
            SignUrlOption.withPathStyle());
    assertThat(url.toString())
        .startsWith(server.endpoint() + "/" + BUCKET + "/signed/s.txt?")
        .contains("X-Goog-Expires=90")
        .contains("X-Goog-Algorithm=GOOG4-RSA-SHA256");
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> ok =
        http.send(
            HttpRequest.newBuilder(url.toURI()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("signed body");

    String tampered = url.toString().replace("X-Goog-Expires=90", "X-Goog-Expires=9000");
    assertThat(
            http.send(
                    HttpRequest.newBuilder(URI.create(tampered)).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(403);
    TestServiceAccount stranger = new TestServiceAccount();
    URL foreign =
        storage.signUrl(
            BlobInfo.newBuilder(BlobId.of(BUCKET, "signed/s.txt")).build(),
            90,
            TimeUnit.SECONDS,
            SignUrlOption.withV4Signature(),
            SignUrlOption.signWith(stranger.credentials()),
            SignUrlOption.withHostName(server.endpoint().toString()),
            SignUrlOption.withPathStyle());
    assertThat(
            http.send(
                    HttpRequest.newBuilder(foreign.toURI()).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(403);
  }
}
