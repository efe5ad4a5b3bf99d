package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/** The one JSON mapper of the wire formats: unknown fields ignored, nulls omitted. */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .defaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
          .build();

  /**
   * Reads a request body: exactly one JSON document. The mapper's own readers stop after the first
   * value, so {@code {"a":1} x} would pass as {@code {"a":1}}; a client's body must not.
   */
  private static final ObjectReader REQUEST_READER =
      MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

  /**
   * A request body as a tree: one JSON document and nothing after it; empty input is a missing
   * node. Failures are Jackson's (describe them with service-kit's JsonErrors, never verbatim).
   */
  public static JsonNode requestTree(byte[] body) throws IOException {
    return REQUEST_READER.readTree(body);
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
    }
  }

  public static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
    }
  }

  /** Parses, or throws {@link IllegalArgumentException} with the parser's message. */
  public static <T> T read(byte[] bytes, Class<T> type) {
    try {
      return MAPPER.readValue(bytes, type);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "invalid " + type.getSimpleName() + " JSON: " + message(e), e);
    }
  }

  public static <T> T read(String text, Class<T> type) {
    try {
      return MAPPER.readValue(text, type);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "invalid " + type.getSimpleName() + " JSON: " + message(e), e);
    }
  }

  public static JsonNode tree(Object value) {
    return MAPPER.valueToTree(value);
  }

  private static String message(IOException e) {
    return e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
  }
}
