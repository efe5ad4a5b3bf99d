// The newest official TypeScript SDK client (the 2.x split package @modelcontextprotocol/client)
// running a tool call as a taskmesh task to completion with progress, driven by McpTasksIT.
// usage: node mcp-client2-check.mjs <base-url> <bearer-token|-> <2026|2025> [tool] [arguments-json]
// Prints one JSON object per line. After "created" the test reports the task's progress through
// the gateway's mesh routes; the client hears it and prints the tool result.
//  2026: the client negotiates the era itself (server/discover). It does not implement the tasks
//        extension (a resultType "task" answer is an error to it), so it calls the tool with a
//        progress token and hears the progress on the call's own stream; the first progress names
//        the task, which it follows meanwhile with subscriptions/listen (resourceSubscriptions).
//  2025-plain: initialize; a plain call with a progress token, as agent frameworks make it: it waits
//        for the flow's result; the first progress names the task.
//  2025: initialize; the call is task-augmented (params.task), progress and task status arrive as
//        notifications, tasks/result waits for the result.
import { Client, specTypeSchemas } from "@modelcontextprotocol/client";
import { client2TransportFor } from "./mcp-transport.mjs";

const [base, token, era, tool = "pipeline", args = '{"text":"abc"}'] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const modern = era === "2026";

const client = new Client(
  { name: "taskmesh-client2-it", version: "1.0.0" },
  modern ? { versionNegotiation: { mode: "auto" } } : {},
);
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));

try {
  await client.connect(await client2TransportFor(base, token));
  say({
    event: "connected",
    era: client.getProtocolEra(),
    version: client.getNegotiatedProtocolVersion(),
    discovered: client.getDiscoverResult() !== undefined,
    capabilities: client.getServerCapabilities(),
  });
  const tools = await client.listTools();
  say({ event: "tools", names: tools.tools.map((t) => t.name) });
  if (modern) {
    await modernCall();
  } else if (era === "2025-plain") {
    await plainCall();
  } else {
    await sessionCall();
  }
  await client.close();
  say({ event: "closed", errors });
  process.exit(0);
} catch (e) {
  say({ event: "error", message: String((e && e.message) || e), code: e && e.code, errors });
  process.exit(1);
}

async function modernCall() {
  const progress = [];
  const updated = [];
  let taskId;
  let listening;
  client.setNotificationHandler("notifications/resources/updated", (n) => updated.push(n.params.uri));
  const result = await client.callTool(
    { name: tool, arguments: JSON.parse(args) },
    {
      timeout: 90_000,
      onprogress: async (p) => {
        progress.push({ progress: p.progress, total: p.total, message: p.message });
        const named = /^task (\S+) started$/.exec(p.message ?? "");
        if (named && !taskId) {
          taskId = named[1];
          listening = await client.listen({ resourceSubscriptions: [`taskmesh://tasks/${taskId}`] });
          say({ event: "created", taskId, honored: listening.honoredFilter });
        }
      },
    },
  );
  say({ event: "result", result });
  // the stream ends itself once the task it follows is final
  const closed = await Promise.race([
    listening.closed,
    new Promise((resolve) => setTimeout(() => resolve("still open"), 10_000)),
  ]);
  say({ event: "heard", progress, updated: updated.length, listenClosed: closed });
  const resource = await client.readResource({ uri: `taskmesh://tasks/${taskId}` });
  say({ event: "resource", text: resource.contents[0].text });
  let refused = null;
  try {
    await client.listen({ taskIds: [taskId] });
  } catch (e) {
    refused = { code: e.code, message: e.message };
  }
  say({ event: "listen-tasks-without-extension", error: refused });
}

async function plainCall() {
  const progress = [];
  let taskId;
  const result = await client.callTool(
    { name: tool, arguments: JSON.parse(args) },
    {
      timeout: 90_000,
      onprogress: (p) => {
        progress.push({ progress: p.progress, total: p.total, message: p.message });
        const named = /^task (\S+) started$/.exec(p.message ?? "");
        if (named && !taskId) {
          taskId = named[1];
          say({ event: "created", taskId });
        }
      },
    },
  );
  say({ event: "result", result });
  say({ event: "heard", progress });
}

async function sessionCall() {
  const progress = [];
  const statuses = [];
  // the call's answer comes at once; its token stays live until the task ends (2025-11-25 tasks)
  client.setNotificationHandler("notifications/progress", (n) =>
    progress.push({ progress: n.params.progress, total: n.params.total, message: n.params.message }),
  );
  client.setNotificationHandler("notifications/tasks/status", (n) => statuses.push(n.params.status));
  // callTool() expects a CallToolResult: a task-augmented call names the result it expects
  const created = await client.request(
    {
      method: "tools/call",
      params: {
        name: tool,
        arguments: JSON.parse(args),
        task: {},
        _meta: { progressToken: "client2-progress" },
      },
    },
    specTypeSchemas.CreateTaskResult,
  );
  const taskId = created.task.taskId;
  say({ event: "created", taskId, status: created.task.status });
  const result = await client.request(
    { method: "tasks/result", params: { taskId } },
    specTypeSchemas.GetTaskPayloadResult,
    { timeout: 90_000 },
  );
  say({ event: "result", result });
  for (let i = 0; i < 50 && !statuses.includes("completed"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const task = await client.request(
    { method: "tasks/get", params: { taskId } },
    specTypeSchemas.GetTaskResult,
  );
  say({ event: "heard", progress, statuses, task: task.status });
}
