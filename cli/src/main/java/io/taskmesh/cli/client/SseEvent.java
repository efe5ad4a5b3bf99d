package io.taskmesh.cli.client;

/** One Server-Sent Event: {@code id} is null when the event carried none (FLY events). */
public record SseEvent(String id, String event, String data) {}
