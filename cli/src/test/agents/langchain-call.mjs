// LangChain's MCP adapters (MultiServerMCPClient) turn the gateway's tools into LangChain tools and
// invoke one, hearing its progress. Prints JSON lines: each progress, then the tool's output.
// usage: node langchain-call.mjs <gateway-url> <tool> <arguments-json>
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

const [base, tool, args] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const client = new MultiServerMCPClient({
  mcpServers: { taskmesh: { url: base + "/mcp", transport: "http" } },
  onProgress: (p) => say({ event: "progress", progress: p.progress, total: p.total, message: p.message }),
});
try {
  const tools = await client.getTools();
  const found = tools.find((t) => t.name === tool || t.name.endsWith("__" + tool));
  const output = await found.invoke(JSON.parse(args));
  say({ event: "result", output: typeof output === "string" ? output : JSON.stringify(output) });
} finally {
  await client.close();
}
