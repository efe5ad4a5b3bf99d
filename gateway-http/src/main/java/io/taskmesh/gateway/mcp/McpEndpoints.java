package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.config.JavalinConfig;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletSseServerTransportProvider;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.taskmesh.gateway.McpAuth;
import io.taskmesh.gateway.ToolCalls;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

/**
 * MCP with the official Java SDK on the gateway's Jetty: Streamable HTTP on {@code /mcp} and the
 * older HTTP+SSE transport on {@code /mcp/sse} (messages POSTed to {@code /mcp/message}). The SDK
 * servlets are registered on Javalin's servlet context (not called from Javalin routes, which
 * breaks the standalone GET stream); one server per transport, tools kept in sync by {@link
 * McpTools}.
 */
public final class McpEndpoints implements AutoCloseable {
  public static final String STREAMABLE_PATH = "/mcp";
  public static final String SSE_PATH = "/mcp/sse";
  public static final String MESSAGE_PATH = "/mcp/message";

  private final HttpServletStreamableServerTransportProvider streamable;
  private final HttpServletSseServerTransportProvider sse;
  private final McpSyncServer streamableServer;
  private final McpSyncServer sseServer;
  private final McpAuthFilter authFilter;
  private final McpRequestGuard guard;

  /**
   * @param allowedHosts Host header patterns ({@code host:port}, {@code host:*}); empty = no Host
   *     check
   * @param allowedOrigins Origin patterns; a request without Origin always passes
   * @param maxBodyBytes the largest request body, as on every other route (the SDK servlets are not
   *     behind Javalin's limit)
   */
  public McpEndpoints(
      ToolCalls calls,
      McpAuth auth,
      List<String> allowedHosts,
      List<String> allowedOrigins,
      String version,
      long maxBodyBytes) {
    McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
    DefaultServerTransportSecurityValidator security =
        DefaultServerTransportSecurityValidator.builder()
            .allowedHosts(allowedHosts)
            .allowedOrigins(allowedOrigins)
            .build();
    this.streamable =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(json)
            .mcpEndpoint(STREAMABLE_PATH)
            .contextExtractor(McpPrincipal::extract)
            .securityValidator(security)
            .keepAliveInterval(Duration.ofSeconds(15))
            .build();
    this.sse =
        HttpServletSseServerTransportProvider.builder()
            .jsonMapper(json)
            .sseEndpoint(SSE_PATH)
            .messageEndpoint(MESSAGE_PATH)
            .contextExtractor(McpPrincipal::extract)
            .securityValidator(security)
            .keepAliveInterval(Duration.ofSeconds(15))
            .build();
    McpSchema.ServerCapabilities caps = McpSchema.ServerCapabilities.builder().tools(true).build();
    this.streamableServer =
        McpServer.sync(streamable)
            .jsonMapper(json)
            .serverInfo("taskmesh", version)
            .capabilities(caps)
            .build();
    this.sseServer =
        McpServer.sync(sse)
            .jsonMapper(json)
            .serverInfo("taskmesh", version)
            .capabilities(caps)
            .build();
    McpTools tools = new McpTools(calls);
    tools.add(streamableServer);
    tools.add(sseServer);
    tools.sync(calls.flows().all());
    calls.flows().onChange(tools::sync);
    this.authFilter = new McpAuthFilter(auth);
    this.guard = new McpRequestGuard(STREAMABLE_PATH, MESSAGE_PATH, maxBodyBytes);
  }

  /**
   * Registers the SDK servlets behind three filters, in this order: JSON-RPC error bodies for every
   * error, then auth, then the request checks (so a client without credentials learns nothing about
   * its request but the 401).
   */
  public void mount(JavalinConfig cfg) {
    cfg.jetty.modifyServletContextHandler(
        h -> {
          EnumSet<DispatcherType> requests = EnumSet.of(DispatcherType.REQUEST);
          for (var filter : List.of(new McpErrorResponses(), authFilter, guard)) {
            FilterHolder holder = new FilterHolder(filter);
            holder.setAsyncSupported(true);
            for (String path : List.of(STREAMABLE_PATH, SSE_PATH, MESSAGE_PATH)) {
              h.addFilter(holder, path, requests);
            }
          }
          ServletHolder streamableHolder = new ServletHolder("mcp-streamable", streamable);
          streamableHolder.setAsyncSupported(true);
          h.addServlet(streamableHolder, STREAMABLE_PATH);
          ServletHolder sseHolder = new ServletHolder("mcp-sse", sse);
          sseHolder.setAsyncSupported(true);
          h.addServlet(sseHolder, SSE_PATH);
          h.addServlet(sseHolder, MESSAGE_PATH);
        });
  }

  @Override
  public void close() {
    streamableServer.close();
    sseServer.close();
  }
}
