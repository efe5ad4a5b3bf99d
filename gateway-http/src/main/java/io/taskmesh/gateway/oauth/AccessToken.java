package io.taskmesh.gateway.oauth;

import java.time.Instant;

/**
 * A verified access token: whose it is ({@code sub}, the client id), what for, and which family
 * issued it.
 */
public record AccessToken(
    String clientId,
    String scope,
    String audience,
    String familyId,
    String jti,
    Instant expiresAt) {}
