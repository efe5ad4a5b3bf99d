package io.taskmesh.gateway.mcp.wire;

/** A {@code text} content block: the one block kind the gateway writes itself. */
public record TextContent(String type, String text) {
  public static TextContent of(String text) {
    return new TextContent("text", text);
  }
}
