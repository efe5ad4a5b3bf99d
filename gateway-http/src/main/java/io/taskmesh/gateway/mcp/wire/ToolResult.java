package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * A {@code CallToolResult}. Ours rather than the SDK's: a handler may choose its content blocks
 * ({@code result.mcp.content}), which must reach the client exactly as written, not re-read into
 * the SDK's content types; and the 2026-07-28 revision inlines it with a {@code resultType}.
 *
 * @param content {@link TextContent} blocks, or a handler's blocks as its JSON gave them
 * @param structuredContent the object the tool's output schema describes; null: absent
 * @param error written as {@code isError}
 * @param meta written as {@code _meta}; null: absent
 * @param resultType the 2026-07-28 revision's {@code complete}; null: absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolResult(
    List<Object> content,
    Object structuredContent,
    @JsonProperty("isError") boolean error,
    @JsonProperty("_meta") Map<String, Object> meta,
    String resultType) {

  public ToolResult {
    content = List.copyOf(content);
  }

  /** A result whose one content block is {@code text}. */
  public static ToolResult text(
      String text, Object structuredContent, boolean error, Map<String, Object> meta) {
    return new ToolResult(List.of(TextContent.of(text)), structuredContent, error, meta, null);
  }

  /** The same result without structured content: an error need not match the output schema. */
  public ToolResult withoutStructuredContent() {
    return new ToolResult(content, null, error, meta, resultType);
  }

  /** The same result with another text: the first block is the text block replaced. */
  public ToolResult withText(String text) {
    return new ToolResult(
        List.of(TextContent.of(text)), structuredContent, error, meta, resultType);
  }

  /**
   * As a task's inlined result in the 2026-07-28 revision: {@code resultType: complete}, and no
   * {@code _meta}, since the task id is the envelope's.
   */
  public ToolResult inlined() {
    return new ToolResult(content, structuredContent, error, null, "complete");
  }
}
