package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The gateway's own view of a task in the A2A {@code metadata}: every field is written, a null one
 * as {@code null}, so a client sees which facts the gateway does not have yet.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record TaskMetadata(
    @JsonProperty("flow") String flow,
    @JsonProperty("status") String status,
    @JsonProperty("progress_percent") double progressPercent,
    @JsonProperty("created_at") String createdAt,
    @JsonProperty("updated_at") String updatedAt) {}
