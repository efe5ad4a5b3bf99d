package io.taskmesh.gateway.a2a.card;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aSettings;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Serves the agent card: public at {@code /.well-known/agent.json} and {@code
 * /.well-known/agent-card.json}, and the authenticated extended card as an RPC method.
 */
public final class AgentCards {
  private final A2aSettings settings;
  private final Supplier<Map<String, FlowConfig>> flows;
  private final CardEtags etags = new CardEtags();

  /** How long a client may keep the card: skills change with a flow config reload. */
  static final int CARD_MAX_AGE_SECONDS = 60;

  public AgentCards(A2aSettings settings, Supplier<Map<String, FlowConfig>> flows) {
    this.settings = settings;
    this.flows = flows;
  }

  public void publicCard(Context ctx) {
    serve(ctx, Json.write(AgentCard.build(settings, endpoint(ctx), skills().values(), false)));
  }

  /** The A2A 1.0 card (1.0 fields only, {@link AgentCard#v1}). */
  public void v1PublicCard(Context ctx) {
    serve(
        ctx,
        Json.write(
            AgentCard.v1(AgentCard.build(settings, endpoint(ctx), skills().values(), false))));
  }

  /**
   * A card with the caching headers of A2A 1.0 (8.6.1): {@code Cache-Control} with a short {@code
   * max-age} (a flow config reload changes the skills), an {@code ETag} of the content, and {@code
   * Last-Modified} when this replica first served that content; a matching {@code If-None-Match}
   * gets 304.
   */
  private void serve(Context ctx, String card) {
    String etag = CardEtags.of(card);
    ctx.header("Cache-Control", "public, max-age=" + CARD_MAX_AGE_SECONDS);
    ctx.header("ETag", etag);
    ctx.header("Last-Modified", etags.firstSeen(etag));
    String ifNoneMatch = ctx.header("If-None-Match");
    if (ifNoneMatch != null && CardEtags.matches(ifNoneMatch, etag)) {
      ctx.status(HttpStatus.NOT_MODIFIED);
      return;
    }
    ctx.contentType("application/json").result(card);
  }

  /**
   * The authenticated extended card; an agent without one (A2A auth off, so the card does not
   * declare it) answers AuthenticatedExtendedCardNotConfiguredError (-32007), as A2A 0.3 says.
   */
  public ObjectNode extendedCard(Context ctx) {
    if (!settings.authEnabled()) {
      throw new A2aException(
          A2aException.EXTENDED_CARD_NOT_CONFIGURED,
          "Authenticated Extended Card is not configured: A2A auth is off, so there is none");
    }
    return AgentCard.build(settings, endpoint(ctx), skills().values(), true);
  }

  /** Flows with an {@code a2a} section, by name. */
  public Map<String, FlowConfig> skills() {
    Map<String, FlowConfig> out = new LinkedHashMap<>();
    flows
        .get()
        .forEach(
            (name, flow) -> {
              if (flow.isA2aSkill()) {
                out.put(name, flow);
              }
            });
    return out;
  }

  /**
   * The absolute URL of {@code POST /a2a/}: the configured public URL, else what the client called.
   */
  private String endpoint(Context ctx) {
    if (settings.publicUrl() != null) {
      String base = settings.publicUrl().toString();
      return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/a2a/";
    }
    String host = ctx.header("Host");
    return ctx.scheme() + "://" + (host != null ? host : ctx.host()) + "/a2a/";
  }
}
