package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.taskmesh.servicekit.ApiException;
import io.taskmesh.servicekit.JsonErrors;
import java.io.IOException;

/**
 * Request bodies must be exactly one JSON value (400 otherwise); the size limit is {@link
 * Answers#readBody}'s.
 */
final class JsonBodies {
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonBodies() {}

  /**
   * 400 unless {@code bytes} is exactly one JSON value. Streams the tokens (no tree is built):
   * every token is still tokenized and checked, so malformed JSON anywhere is found.
   */
  static void checkOneJsonValue(byte[] bytes) {
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() == null) {
        throw ApiException.badRequest(
            "the request body must be a JSON document, got only whitespace");
      }
      p.skipChildren();
      JsonToken trailing = p.nextToken();
      if (trailing != null) {
        throw ApiException.badRequest(
            "request body has data after its JSON value at line "
                + p.currentLocation().getLineNr()
                + ", column "
                + p.currentLocation().getColumnNr());
      }
    } catch (IOException e) {
      throw ApiException.badRequest(JsonErrors.describe("request body", e));
    }
  }
}
