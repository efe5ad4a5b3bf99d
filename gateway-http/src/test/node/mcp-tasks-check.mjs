// The official TypeScript SDK client following a tool call as an MCP task, driven by McpTasksIT.
// usage: node mcp-tasks-check.mjs <base-url> <bearer-token|-> <streamable|sse>
// Prints one JSON object per line. After "created" the test reports the task's progress through
// the gateway's mesh routes, pausing it once; the client meanwhile polls the task, answers the
// elicitation the pause brings (via tasks/result), hears progress, task status and resource
// updates, and prints the tool result once tasks/result answers.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { transportFor } from "./mcp-transport.mjs";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [base, token, kind] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const transport = transportFor(base, token, kind);

const client = new Client(
  { name: "taskmesh-tasks-it", version: "1.0.0" },
  { capabilities: { elicitation: {} } },
);
const elicited = [];
client.setRequestHandler(ElicitRequestSchema, (request) => {
  elicited.push({
    message: request.params.message,
    relatedTask: request.params._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? null,
  });
  return { action: "accept", content: { text: "go on" } };
});
const statuses = [];
const updated = [];
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => statuses.push(n.params.status));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));

try {
  await client.connect(transport);
  say({ event: "capabilities", tasks: client.getServerCapabilities().tasks ?? null });
  const tools = await client.listTools();
  say({ event: "tools", execution: Object.fromEntries(tools.tools.map((t) => [t.name, t.execution ?? null])) });

  const progress = [];
  const stream = client.experimental.tasks.callToolStream(
    { name: "pipeline", arguments: { text: "abc" } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p) },
  );
  let taskId;
  for await (const message of stream) {
    if (message.type === "taskCreated") {
      taskId = message.task.taskId;
      await client.subscribeResource({ uri: `taskmesh://tasks/${taskId}` });
      say({ event: "created", taskId, status: message.task.status });
    } else if (message.type === "result") {
      say({ event: "result", result: message.result });
    } else if (message.type === "error") {
      say({ event: "stream-error", message: String(message.error?.message ?? message.error) });
    }
  }
  // the last status notification may trail the result on another stream
  for (let i = 0; i < 50 && !statuses.includes("completed"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  say({ event: "heard", progress, statuses, updated: updated.length, elicited });
  const task = await client.experimental.tasks.getTask(taskId);
  say({ event: "task", task });
  const listed = await client.experimental.tasks.listTasks();
  say({ event: "listed", ids: listed.tasks.map((t) => t.taskId) });
  const resource = await client.readResource({ uri: `taskmesh://tasks/${taskId}` });
  say({ event: "resource", text: resource.contents[0].text, mimeType: resource.contents[0].mimeType });
  const templates = await client.listResourceTemplates();
  say({ event: "templates", uris: templates.resourceTemplates.map((t) => t.uriTemplate) });

  // a second task, cancelled while it runs
  const created = await client.request(
    { method: "tools/call", params: { name: "pipeline", arguments: { text: "x" }, task: {} } },
    (await import("@modelcontextprotocol/sdk/types.js")).CreateTaskResultSchema,
  );
  const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
  say({ event: "cancelled", status: cancelled.status });
  let again;
  try {
    await client.experimental.tasks.cancelTask(created.task.taskId);
  } catch (e) {
    again = { code: e.code, message: e.message };
  }
  say({ event: "cancel-again", error: again ?? null });
  await client.close();
  say({ event: "closed" });
  process.exit(0);
} catch (e) {
  say({ event: "error", message: String(e && e.message || e), code: e && e.code });
  process.exit(1);
}
