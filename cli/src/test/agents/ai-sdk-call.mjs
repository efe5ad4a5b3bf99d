// The Vercel AI SDK's MCP client (createMCPClient over Streamable HTTP) calls a tool as an agent
// built on it would: it lists the tools and executes one. Prints one JSON line: the tool's output.
// usage: node ai-sdk-call.mjs <gateway-url> <tool> <arguments-json>
import { createMCPClient } from "@ai-sdk/mcp";

const [base, tool, args] = process.argv.slice(2);
const client = await createMCPClient({ transport: { type: "http", url: base + "/mcp" } });
try {
  const tools = await client.tools();
  const output = await tools[tool].execute(JSON.parse(args), { toolCallId: "call-1", messages: [] });
  process.stdout.write(JSON.stringify({ event: "result", output }) + "\n");
} finally {
  await client.close();
}
