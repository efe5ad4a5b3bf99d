package io.taskmesh.gateway;

import io.javalin.http.Context;
import io.taskmesh.gateway.fly.DatabaseUrl;
import io.taskmesh.gateway.http.LogContextFilter;
import io.taskmesh.gateway.http.ProtocolMetricsFilter;
import io.taskmesh.servicekit.ops.JdbcProbe;
import io.taskmesh.servicekit.ops.KafkaProbe;
import io.taskmesh.servicekit.ops.Readiness;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import io.taskmesh.topology.TaskView;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.EnumSet;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;

/** The gateway's operations routes ({@code /metrics}, {@code /ready}) and readiness checks. */
final class GatewayOps {
  /** How long a check may take before it counts as failed. */
  static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);

  private GatewayOps() {}

  static void metrics(Context ctx) {
    ServiceMetrics.Scrape scrape = ServiceMetrics.scrape(ctx.header("Accept"));
    ctx.contentType(scrape.contentType()).result(scrape.body());
  }

  static void ready(Context ctx, Readiness readiness) {
    Readiness.Answer a = readiness.check();
    ctx.status(a.httpStatus()).contentType("application/json").result(a.json());
  }

  /** The log MDC of each request; MCP and A2A request counting, on the modes that serve them. */
  static void countProtocolRequests(ServletContextHandler h, GatewayMode mode) {
    h.addFilter(new FilterHolder(new LogContextFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    if (!mode.servesApi()) {
      return;
    }
    FilterHolder f = new FilterHolder(new ProtocolMetricsFilter());
    for (String path : new String[] {"/mcp", "/mcp/*", "/a2a/*"}) {
      h.addFilter(f, path, EnumSet.of(DispatcherType.REQUEST));
    }
  }

  /**
   * Kafka reachable, the task view's Streams RUNNING, and the database (FLY channel, OAuth store)
   * reachable when one is configured.
   */
  static void addChecks(Readiness readiness, GatewayConfig config, TaskView view) {
    readiness.add("kafka", new KafkaProbe(config.bootstrapServers(), CHECK_TIMEOUT));
    readiness.add(
        "streams",
        () ->
            view.state() == KafkaStreams.State.RUNNING
                ? null
                : "task view Streams state is " + view.state());
    if (config.databaseUrl() != null) {
      readiness.add(
          "database", new JdbcProbe(DatabaseUrl.toJdbc(config.databaseUrl()), CHECK_TIMEOUT));
    }
  }
}
