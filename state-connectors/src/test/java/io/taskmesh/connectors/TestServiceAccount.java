package io.taskmesh.connectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.auth.oauth2.ServiceAccountCredentials;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** A service account made up for a test: a fresh RSA key, as credentials and as a key file. */
final class TestServiceAccount {
  static final String EMAIL = "connector-test@local-project.iam.gserviceaccount.com";
  private final KeyPair keys;

  TestServiceAccount() throws NoSuchAlgorithmException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    keys = generator.generateKeyPair();
  }

  PublicKey publicKey() {
    return keys.getPublic();
  }

  ServiceAccountCredentials credentials() {
    return ServiceAccountCredentials.newBuilder()
        .setClientEmail(EMAIL)
        .setPrivateKey(keys.getPrivate())
        .setPrivateKeyId("test-key")
        .setProjectId("local-project")
        // never contacted: with an emulator host the client sends no tokens; the key only signs
        .setTokenServerUri(URI.create("http://127.0.0.1:9/token"))
        .build();
  }

  /** The key file format of {@code GOOGLE_APPLICATION_CREDENTIALS}. */
  Path writeKeyFile(Path dir) throws IOException {
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes())
                .encodeToString(keys.getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    Map<String, String> file = new LinkedHashMap<>();
    file.put("type", "service_account");
    file.put("project_id", "local-project");
    file.put("private_key_id", "test-key");
    file.put("private_key", pem);
    file.put("client_email", EMAIL);
    file.put("client_id", "1");
    file.put("token_uri", "http://127.0.0.1:9/token");
    Path path = dir.resolve("service-account.json");
    Files.write(path, new ObjectMapper().writeValueAsBytes(file));
    return path;
  }
}
