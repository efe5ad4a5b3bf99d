package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The params of the {@code elicitation/create} that asks a paused task's question: the question,
 * and a form of one text field. Ours rather than the SDK's {@code ElicitFormRequest}, which carries
 * a {@code mode} the question never had on the wire.
 *
 * @param meta written as {@code _meta} (the related task); null: absent, as in an input request
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Elicitation(
    String message, TextForm requestedSchema, @JsonProperty("_meta") Map<String, Object> meta) {

  /** The form: an object whose one required property is the text the task continues with. */
  public record TextForm(String type, Map<String, Field> properties, List<String> required) {}

  /** One field of the form. */
  public record Field(String type, String description) {}

  /** Asks {@code message}, the answer one text. */
  public static Elicitation ofText(String message, Map<String, Object> meta) {
    return new Elicitation(
        message,
        new TextForm(
            "object",
            Map.of("text", new Field("string", "the input the task continues with")),
            List.of("text")),
        meta);
  }

  /** The same question without {@code _meta}: as an input request carries it. */
  public Elicitation withoutMeta() {
    return new Elicitation(message, requestedSchema, null);
  }

  /** A request to the client as a 2026-07-28 input request names it: method and params. */
  public record InputRequest(String method, Object params) {}
}
