package io.taskmesh.gateway.a2a.model;

import java.util.List;
import java.util.Objects;

/** An A2A {@code Artifact}: the task's {@code result}, or a chunk of the {@code fly-stream}. */
public record A2aArtifact(String artifactId, String name, List<A2aPart> parts) {
  public A2aArtifact {
    Objects.requireNonNull(artifactId, "artifactId");
    parts = List.copyOf(parts);
  }
}
