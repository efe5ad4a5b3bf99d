package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One notification to one config's URL: a POST with the config's token and authentication, retried
 * after a connection error, a timeout, 429 or 5xx as {@link PushNotifier.Retry} allows; other
 * answers are final.
 */
final class PushDelivery {
  private static final Logger LOG = LoggerFactory.getLogger(PushDelivery.class);
  private static final String TOKEN_HEADER = "X-A2A-Notification-Token";

  private final PushNotifier.Retry retry;
  private final boolean allowPrivate;
  private final ScheduledExecutorService scheduler;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  PushDelivery(PushNotifier.Retry retry, boolean allowPrivate, ScheduledExecutorService scheduler) {
    this.retry = retry;
    this.allowPrivate = allowPrivate;
    this.scheduler = scheduler;
  }

  /** Completes (never exceptionally) when delivered or given up. */
  CompletableFuture<Void> post(ObjectNode config, JsonNode body) {
    return post(config, body, 0, System.nanoTime());
  }

  private CompletableFuture<Void> post(
      ObjectNode config, JsonNode body, int attempt, long startNanos) {
    URI url = URI.create(config.get("url").asText());
    try {
      PushTarget.check(url, allowPrivate); // again: the host's DNS answer may have changed
    } catch (A2aException e) {
      LOG.warn("push to {} skipped: {}", url, e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    return http.sendAsync(request(url, config, body), HttpResponse.BodyHandlers.discarding())
        .handle(
            (resp, err) -> {
              boolean again = err != null || resp.statusCode() == 429 || resp.statusCode() >= 500;
              if (!again && resp.statusCode() >= 300) {
                LOG.warn("push to {} refused with {}; not retried", url, resp.statusCode());
              }
              return again;
            })
        .thenCompose(
            again ->
                again
                    ? retryLater(config, body, attempt, startNanos, url)
                    : CompletableFuture.completedFuture(null));
  }

  private HttpRequest request(URI url, ObjectNode config, JsonNode body) {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(url)
            .timeout(retry.timeout())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    JsonNode token = config.get("token");
    if (token != null && token.isTextual()) {
      req.header(TOKEN_HEADER, token.asText());
    }
    JsonNode auth = config.get("authentication");
    if (auth != null
        && auth.isObject()
        && auth.path("credentials").isTextual()
        && auth.path("schemes").size() > 0) {
      req.header(
          "Authorization",
          auth.get("schemes").get(0).asText() + " " + auth.get("credentials").asText());
    }
    return req.build();
  }

  /** The next attempt after this one's backoff step, unless the steps or the time bound ran out. */
  private CompletableFuture<Void> retryLater(
      ObjectNode config, JsonNode body, int attempt, long startNanos, URI url) {
    long elapsed = System.nanoTime() - startNanos;
    if (attempt >= retry.backoff().size()
        || elapsed + retry.backoff().get(attempt).toNanos() > retry.within().toNanos()) {
      LOG.warn("push to {} failed {} times; giving up", url, attempt + 1);
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> next = new CompletableFuture<>();
    scheduler.schedule(
        () ->
            post(config, body, attempt + 1, startNanos).whenComplete((v, e) -> next.complete(null)),
        retry.backoff().get(attempt).toMillis(),
        TimeUnit.MILLISECONDS);
    return next;
  }
}
