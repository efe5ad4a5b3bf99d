// The official TypeScript SDK client transport the check scripts connect with.
// kind: "sse" (the older HTTP+SSE transport) or anything else (Streamable HTTP); token "-" or
// empty sends no Authorization header.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

export function transportFor(base, token, kind) {
  const headers = token && token !== "-" ? { Authorization: `Bearer ${token}` } : {};
  return kind === "sse"
    ? new SSEClientTransport(new URL(base + "/mcp/sse"), {
        requestInit: { headers },
        eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers || {}), ...headers } }) },
      })
    : new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers } });
}

// The 2.x split client package's Streamable HTTP transport (it speaks 2026-07-28 as well).
export async function client2TransportFor(base, token) {
  const { StreamableHTTPClientTransport: Transport2 } = await import("@modelcontextprotocol/client");
  const headers = token && token !== "-" ? { Authorization: `Bearer ${token}` } : {};
  return new Transport2(new URL(base + "/mcp"), { requestInit: { headers } });
}
