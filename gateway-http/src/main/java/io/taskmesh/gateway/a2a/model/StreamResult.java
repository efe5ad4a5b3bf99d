package io.taskmesh.gateway.a2a.model;

/** What an A2A stream carries as the {@code result} of its JSON-RPC responses. */
public sealed interface StreamResult permits A2aTask, StatusUpdateEvent, ArtifactUpdateEvent {}
