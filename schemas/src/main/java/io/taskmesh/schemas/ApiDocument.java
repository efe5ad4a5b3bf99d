package io.taskmesh.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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

  /**
   * The operations the document says a process serves with no optional feature on, as {@code "GET
   * /path"}: those whose {@code x-served-by} names {@code servedBy} ({@code gateway:api}, {@code
   * mesh-api:external}, ...) and that have no {@code x-requires}. Tests compare this with the
   * routes the apps register, so the document cannot drift.
   */
  public static Set<String> operationsServedBy(String servedBy) {
    return operationsServedBy(servedBy, Set.of());
  }

  /**
   * The same, for a process with the optional {@code features} on (such as {@code oauth}): an
   * operation whose {@code x-requires} lists features is included only when all of them are on.
   */
  public static Set<String> operationsServedBy(String servedBy, Set<String> features) {
    Set<String> out = new TreeSet<>();
    JsonNode paths = Json.read(OPENAPI_JSON, JsonNode.class).path("paths");
    for (Iterator<Map.Entry<String, JsonNode>> p = paths.properties().iterator(); p.hasNext(); ) {
      Map.Entry<String, JsonNode> path = p.next();
      for (Iterator<Map.Entry<String, JsonNode>> o = path.getValue().properties().iterator();
          o.hasNext(); ) {
        Map.Entry<String, JsonNode> operation = o.next();
        if (servedBy(operation.getValue(), servedBy)
            && requirementsMet(operation.getValue(), features)) {
          out.add(operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
        }
      }
    }
    return out;
  }

  private static boolean servedBy(JsonNode operation, String servedBy) {
    for (JsonNode served : operation.path("x-served-by")) {
      if (served.asText().equals(servedBy)) {
        return true;
      }
    }
    return false;
  }

  private static boolean requirementsMet(JsonNode operation, Set<String> features) {
    for (JsonNode required : operation.path("x-requires")) {
      if (!features.contains(required.asText())) {
        return false;
      }
    }
    return true;
  }

  private static byte[] load() {
    try (InputStream in = ApiDocument.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "missing resource " + RESOURCE + " (built from docs/api/openapi.json)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
