package io.taskmesh.sidecar;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings only the crew actors read (the rest is in {@link SidecarConfig}).
 *
 * @param sinkHooks {@code SVC_SINK_HOOKS}: http(s) URLs x-sink POSTs every final envelope to
 * @param hookAttempts {@code SVC_SINK_HOOK_ATTEMPTS}: calls per hook and envelope (default 3)
 * @param hookBackoff {@code SVC_SINK_HOOK_BACKOFF}: first retry delay, doubled each retry (default
 *     500ms)
 * @param hookTimeout {@code SVC_SINK_HOOK_TIMEOUT}: per-call timeout (default 5s)
 * @param resumeWait {@code SVC_PAUSE_RESUME_WAIT}: how long x-pause waits for the parked envelope
 *     of a resume message to appear before dead-lettering the resume (default 5s)
 */
public record CrewConfig(
    List<URI> sinkHooks,
    int hookAttempts,
    Duration hookBackoff,
    Duration hookTimeout,
    Duration resumeWait) {

  public CrewConfig {
    sinkHooks = List.copyOf(sinkHooks);
    for (URI u : sinkHooks) {
      if (u.getScheme() == null
          || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
          || u.getHost() == null) {
        throw new ConfigException("SVC_SINK_HOOKS", "not an http(s) URL: " + u);
      }
    }
    if (hookAttempts < 1) {
      throw new ConfigException(
          "SVC_SINK_HOOK_ATTEMPTS", "must be at least 1, got " + hookAttempts);
    }
  }

  public static CrewConfig defaults() {
    return new CrewConfig(
        List.of(), 3, Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  public static CrewConfig fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    List<URI> hooks;
    try {
      hooks = env.list("SVC_SINK_HOOKS", "").stream().map(URI::create).toList();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("SVC_SINK_HOOKS", e.getMessage());
    }
    return new CrewConfig(
        hooks,
        env.integer("SVC_SINK_HOOK_ATTEMPTS", 3, Integer.MIN_VALUE, Integer.MAX_VALUE),
        env.duration("SVC_SINK_HOOK_BACKOFF", "500ms"),
        env.duration("SVC_SINK_HOOK_TIMEOUT", "5s"),
        env.duration("SVC_PAUSE_RESUME_WAIT", "5s"));
  }

  public CrewConfig withHooks(List<URI> hooks, int attempts, Duration backoff) {
    return new CrewConfig(hooks, attempts, backoff, hookTimeout, resumeWait);
  }

  public CrewConfig withResumeWait(Duration wait) {
    return new CrewConfig(sinkHooks, hookAttempts, hookBackoff, hookTimeout, wait);
  }
}
