package io.taskmesh.gateway.a2a;

/** What an A2A stream carries as the {@code result} of its JSON-RPC responses. */
public sealed interface StreamResult permits A2aTask, StatusUpdateEvent, ArtifactUpdateEvent {}
