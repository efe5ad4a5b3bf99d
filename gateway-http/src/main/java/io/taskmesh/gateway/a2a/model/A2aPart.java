package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A part of an A2A message or artifact: text or JSON data; a file only when a flow result asks for
 * one ({@link ShapedResult}).
 */
public sealed interface A2aPart {

  /** {@code {"kind": "text", "text": ...}}. */
  @JsonPropertyOrder({"kind", "text"})
  record Text(String text) implements A2aPart {
    public Text {
      Objects.requireNonNull(text, "text");
    }

    @JsonProperty("kind")
    public String kind() {
      return "text";
    }
  }

  /** {@code {"kind": "data", "data": ...}}: the data is written as it is, nulls inside included. */
  @JsonPropertyOrder({"kind", "data"})
  record Data(JsonNode data) implements A2aPart {
    public Data {
      Objects.requireNonNull(data, "data");
    }

    @JsonProperty("kind")
    public String kind() {
      return "data";
    }
  }

  /**
   * {@code {"kind": "file", "file": {"bytes" | "uri", "name"?, "mimeType"?}}}, the file object as
   * the flow wrote it.
   */
  @JsonPropertyOrder({"kind", "file"})
  record File(JsonNode file) implements A2aPart {
    public File {
      Objects.requireNonNull(file, "file");
    }

    @JsonProperty("kind")
    public String kind() {
      return "file";
    }
  }
}
