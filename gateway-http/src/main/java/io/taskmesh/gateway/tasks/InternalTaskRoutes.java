package io.taskmesh.gateway.tasks;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.ForbiddenResponse;
import io.javalin.http.NotFoundResponse;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.TaskViewConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;

/**
 * The owner side of another replica's forwarded queries: {@code GET /internal/tasks/{id}} (its
 * {@code TaskQueries.get}: this replica's store only) and {@code GET /internal/tasks?owner=} (a
 * forwarded listing, A2A {@code tasks/list}: one owner's tasks here).
 */
public final class InternalTaskRoutes {
  private final TaskQueries queries;
  private final String internalToken;
  private final boolean clientAuthEnabled;

  /**
   * @param internalToken {@code SVC_INTERNAL_TOKEN}, or null
   * @param clientAuthEnabled whether clients authenticate (then the routes need the token)
   */
  public InternalTaskRoutes(TaskQueries queries, String internalToken, boolean clientAuthEnabled) {
    this.queries = queries;
    this.internalToken = internalToken;
    this.clientAuthEnabled = clientAuthEnabled;
  }

  public void mount(JavalinConfig cfg) {
    cfg.routes.get(
        "/internal/tasks",
        ctx -> {
          requireInternalToken(ctx);
          ctx.json(queries.localTasksOf(ctx.queryParam("owner")));
        });
    cfg.routes.get(
        "/internal/tasks/{id}",
        ctx -> {
          requireInternalToken(ctx);
          ctx.json(
              queries
                  .getLocal(ctx.pathParam("id"))
                  .orElseThrow(
                      () -> new NotFoundResponse("task not found: " + ctx.pathParam("id"))));
        });
  }

  /**
   * Internal routes answer other replicas only: with {@code SVC_INTERNAL_TOKEN} set, the request
   * must carry it (constant-time compare); without it they are open only while clients do not
   * authenticate (every task is visible anyway), otherwise refused, so no client can read a foreign
   * task through them.
   */
  private void requireInternalToken(Context ctx) {
    if (internalToken == null) {
      if (clientAuthEnabled) {
        throw new ForbiddenResponse(
            "internal routes are off: set SVC_INTERNAL_TOKEN on every replica");
      }
      return;
    }
    String given = Objects.requireNonNullElse(ctx.header(TaskViewConfig.INTERNAL_TOKEN_HEADER), "");
    if (!MessageDigest.isEqual(
        internalToken.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8))) {
      throw new ForbiddenResponse(
          "internal route: missing or wrong " + TaskViewConfig.INTERNAL_TOKEN_HEADER);
    }
  }
}
