package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What a flow result says about its own A2A answer: a result object with an {@code a2a} member (an
 * object) shapes how the task looks to A2A clients, for flows written for A2A (the TCK example in
 * {@code examples/a2a-tck} is one):
 *
 * <ul>
 *   <li>{@code artifacts}: a list of {@code {"artifactId"?, "name"?, "parts": [...]}}, the task's
 *       artifacts instead of the default {@code result} one (a shaping result without this list has
 *       none) (parts in A2A 0.3 form: {@code {"kind": "text", "text"}}, {@code {"kind": "data",
 *       "data": {...}}}, {@code {"kind": "file", "file": {"bytes" | "uri", "name"?,
 *       "mimeType"?}}});
 *   <li>{@code status}: the text of the final status message (default: the task's own message);
 *   <li>{@code reply}: parts of a direct agent {@code Message} that a waiting {@code message/send}
 *       answers instead of the task;
 *   <li>{@code state: "rejected"}: the agent declined the task (A2A {@code rejected}).
 * </ul>
 *
 * A malformed member is ignored (the task then looks as any task does), so a result that happens to
 * carry an unrelated {@code a2a} field is never refused. Pure: no I/O.
 */
public record ShapedResult(
    List<A2aArtifact> artifacts, String status, List<A2aPart> reply, boolean rejected) {
  public static final String KEY = "a2a";
  private static final ShapedResult NONE = new ShapedResult(null, null, null, false);

  /** The shape a result asks for ({@link #NONE} for an ordinary result). */
  public static ShapedResult of(JsonNode result) {
    JsonNode a2a = result == null ? null : result.get(KEY);
    if (a2a == null || !a2a.isObject()) {
      return NONE;
    }
    List<A2aArtifact> artifacts = null;
    JsonNode list = a2a.get("artifacts");
    if (list != null && list.isArray()) {
      artifacts = new ArrayList<>();
      int i = 0;
      for (JsonNode a : list) {
        A2aArtifact artifact = artifact(a, "artifact-" + i++);
        if (artifact != null) {
          artifacts.add(artifact);
        }
      }
    }
    JsonNode status = a2a.get("status");
    List<A2aPart> reply = parts(a2a.get("reply"));
    boolean rejected = "rejected".equals(a2a.path("state").asText(null));
    return new ShapedResult(
        artifacts,
        status != null && status.isTextual() ? status.asText() : null,
        reply == null || reply.isEmpty() ? null : reply,
        rejected);
  }

  /** An artifact object; null when it has no usable part. */
  public static A2aArtifact artifact(JsonNode a, String defaultId) {
    if (a == null || !a.isObject()) {
      return null;
    }
    List<A2aPart> parts = parts(a.get("parts"));
    if (parts == null || parts.isEmpty()) {
      return null;
    }
    String id = a.path("artifactId").isTextual() ? a.get("artifactId").asText() : defaultId;
    String name = a.path("name").isTextual() ? a.get("name").asText() : id;
    return new A2aArtifact(id, name, parts);
  }

  /** The usable parts of a list (unknown kinds left out); null when it is not a list. */
  static List<A2aPart> parts(JsonNode list) {
    if (list == null || !list.isArray()) {
      return null;
    }
    List<A2aPart> parts = new ArrayList<>();
    for (JsonNode p : list) {
      A2aPart part = part(p);
      if (part != null) {
        parts.add(part);
      }
    }
    return parts;
  }

  private static A2aPart part(JsonNode p) {
    if (p == null || !p.isObject()) {
      return null;
    }
    return switch (p.path("kind").asText("")) {
      case "text" -> p.path("text").isTextual() ? new A2aPart.Text(p.get("text").asText()) : null;
      case "data" -> p.path("data").isObject() ? new A2aPart.Data(p.get("data")) : null;
      case "file" -> {
        JsonNode f = p.get("file");
        yield f != null
                && f.isObject()
                && (f.path("bytes").isTextual() || f.path("uri").isTextual())
            ? new A2aPart.File(f)
            : null;
      }
      default -> null;
    };
  }

  /** The artifacts a shaping result names: exactly those, none when it names none. */
  public List<A2aArtifact> namedArtifacts() {
    return artifacts == null ? List.of() : artifacts;
  }

  /** True for an ordinary result (no usable {@code a2a} member): the task looks as any task. */
  public boolean isEmpty() {
    return artifacts == null && status == null && reply == null && !rejected;
  }
}
