// A real MCP client (the official TypeScript SDK) driven by McpClientIT.
// usage: node mcp-check.mjs <base-url> <bearer-token|-> <streamable|sse>
// Prints one JSON object per line; after "listed" it waits for tools/list_changed (the test
// edits the flow config meanwhile) and prints "changed" with the new tool list.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { transportFor } from "./mcp-transport.mjs";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [base, token, kind] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const transport = transportFor(base, token, kind);

const client = new Client({ name: "taskmesh-it", version: "1.0.0" });
let changed;
const listChanged = new Promise((resolve) => { changed = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed(true));

try {
  await client.connect(transport);
  say({ event: "connected", server: client.getServerVersion(), protocol: transport.protocolVersion ?? null,
        session: transport.sessionId ?? null });
  await client.ping();
  say({ event: "pinged" });
  const call = await client.callTool({ name: "shout", arguments: { text: "hi" } });
  say({ event: "called", result: call });
  const bad = await client.callTool({ name: "shout", arguments: { text: 42 } });
  say({ event: "bad-call", result: bad });
  const tools = await client.listTools();
  say({ event: "listed", tools: tools.tools.map((t) => t.name).sort() });
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), 20000));
  const got = await Promise.race([listChanged, timeout]);
  const after = await client.listTools();
  say({ event: "changed", notified: got, tools: after.tools.map((t) => t.name).sort() });
  await client.close();
  say({ event: "closed" });
  process.exit(0);
} catch (e) {
  say({ event: "error", message: String(e && e.message || e), code: e && e.code });
  process.exit(1);
}
