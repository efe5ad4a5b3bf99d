package io.taskmesh.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The OpenAPI 3.1 document of our HTTP routes (gateway, mesh-api, kv-connector), as written in
 * {@code docs/api/openapi.json}. The build copies that file into this jar, so every service that
 * serves {@code GET /openapi.json} answers the one document the repository shows its readers.
 */
public final class ApiDocument {
  static final String RESOURCE = "/io/taskmesh/schemas/api/openapi.json";
  private static final byte[] OPENAPI_JSON = load();

  private ApiDocument() {}

  /** The document's bytes ({@code application/json}). */
  public static byte[] openApiJson() {
    return OPENAPI_JSON.clone();
  }

  private static byte[] load() {
    try (InputStream in = ApiDocument.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE + " (built from docs/api/openapi.json)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
