package io.taskmesh.topology;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.smile.databind.SmileMapper;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.lang.reflect.Modifier;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Values of the view's stores and their changelogs: written as Smile (Jackson's binary JSON, same
 * data model and field names), read as Smile or JSON. The fold writes a task's state for every
 * event, so this is its hot serde: Smile writes and reads a state faster and smaller than JSON
 * (figures: docs/bench/2026-11-27-figures-from-comments.md). Values written as JSON by earlier
 * versions (their first byte is an opening brace; Smile starts with its own header) stay readable,
 * so no replay is needed to upgrade. Topics other than the changelogs keep JSON.
 */
final class SmileSerde<T> implements Serde<T> {
  private static final ObjectMapper SMILE =
      SmileMapper.builder()
          .addModule(new BlackbirdModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .defaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
          .build();

  private final Class<T> type;

  // made once for the type: the mapper's own calls resolve it and look its (de)serializer up on
  // every value. A type that is not final writes through the mapper, by each value's own class.
  private final ObjectReader reader;
  private final ObjectWriter writer;

  SmileSerde(Class<T> type) {
    this.type = type;
    this.reader = SMILE.readerFor(type);
    this.writer = Modifier.isFinal(type.getModifiers()) ? SMILE.writerFor(type) : SMILE.writer();
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> {
      if (value == null) {
        return null;
      }
      try {
        return writer.writeValueAsBytes(value);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot serialize a " + type.getSimpleName() + ": " + e.getMessage(), e);
      }
    };
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> {
      if (bytes == null) {
        return null;
      }
      if (bytes.length > 0 && bytes[0] == '{') {
        return Json.read(bytes, type);
      }
      try {
        return reader.readValue(bytes);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "invalid stored " + type.getSimpleName() + ": " + e.getMessage(), e);
      }
    };
  }
}
