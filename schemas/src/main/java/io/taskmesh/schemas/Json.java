package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import java.io.IOException;

/** The one JSON mapper of the wire formats: unknown fields ignored, nulls omitted. */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new BlackbirdModule())
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

  /**
   * A reader and a writer per type, made once: the mapper's own {@code readValue} and {@code
   * writeValueAsBytes} resolve the type and look its (de)serializer up in shared caches on every
   * call, a visible share of the CPU of the task path (every envelope, event and update is one of
   * these calls).
   */
  private static final ClassValue<ObjectReader> READERS =
      new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
          return MAPPER.readerFor(type);
        }
      };

  private static final ClassValue<ObjectWriter> WRITERS =
      new ClassValue<>() {
        @Override
        protected ObjectWriter computeValue(Class<?> type) {
          return MAPPER.writerFor(type);
        }
      };

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
      return value == null ? "null" : WRITERS.get(value.getClass()).writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
    }
  }

  public static byte[] bytes(Object value) {
    try {
      return value == null
          ? MAPPER.writeValueAsBytes(null)
          : WRITERS.get(value.getClass()).writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
    }
  }

  /** Parses, or throws {@link IllegalArgumentException} with the parser's message. */
  public static <T> T read(byte[] bytes, Class<T> type) {
    try {
      return READERS.get(type).readValue(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "invalid " + type.getSimpleName() + " JSON: " + message(e), e);
    }
  }

  public static <T> T read(String text, Class<T> type) {
    try {
      return READERS.get(type).readValue(text);
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
