// The official MCP tasks client (@modelcontextprotocol/ext-tasks) on the newest official SDK client
// (@modelcontextprotocol/client), both unmodified, running a task-augmented tool call to completion
// with progress, driven by McpTasksIT.
// usage: node mcp-ext-tasks-check.mjs <base-url> <bearer-token|-> <2026|2025> [tool] [arguments-json]
// Prints one JSON object per line. After "created" the test reports the task's progress through
// the gateway's mesh routes; the package follows the task and prints the tool result.
//  2026: the client discovers the server (server/discover); the tasks extension is served, so the
//        package sends tools/call and tasks/* through the raw dispatch below (the SDK's own codecs
//        do not carry the extension's wire shapes: the package asks its host for this path). It
//        polls tasks/get and answers an input_required task's elicitation with tasks/update.
//  2025: initialize; the package sees the tasks capability, calls the tool task-augmented, follows
//        notifications/tasks/status and tasks/get, and takes the result from tasks/result.
import { Client } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  taskViewFromExecutionEvent,
} from "@modelcontextprotocol/ext-tasks/client";
import { client2TransportFor } from "./mcp-transport.mjs";

const [base, token, era, tool = "pipeline", args = '{"text":"abc"}'] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const modern = era === "2026";
const clientInfo = { name: "taskmesh-ext-tasks-it", version: "1.0.0" };
const authorization = token && token !== "-" ? { Authorization: `Bearer ${token}` } : {};

const client = new Client(clientInfo, modern ? { versionNegotiation: { mode: "auto" } } : {});
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));
const progress = [];
client.setNotificationHandler("notifications/progress", (n) =>
  progress.push({ progress: n.params.progress, total: n.params.total, message: n.params.message }),
);

try {
  await client.connect(await client2TransportFor(base, token));
  const version = client.getNegotiatedProtocolVersion();
  say({
    event: "connected",
    era: client.getProtocolEra(),
    version,
    capabilities: client.getServerCapabilities(),
  });
  const elicited = [];
  const session = createTaskSessionFromClient(client, {
    endpointId: `taskmesh-${era}`,
    onInputRequest: async (request, context) => {
      elicited.push({ kind: request.kind, taskId: context.taskId, delivery: context.delivery });
      return { action: "accept", content: { text: "go on" } };
    },
    onError: (e) => errors.push(String(e?.message ?? e)),
    ...(modern
      ? {
          rawDispatch: rawDispatchFor(version),
          v2RequestFraming: { protocolVersion: version, clientInfo, clientCapabilities: {} },
        }
      : {}),
  });
  say({ event: "session", capabilities: session.capabilities });
  const execution = await session.callTool(tool, JSON.parse(args), {
    task: { preference: "require" },
    requestTimeoutMs: 90_000,
    ...(modern ? {} : { metadata: { progressToken: "ext-tasks-progress" } }),
  });
  say({ event: "created", kind: execution.kind, taskId: execution.handle?.taskId });
  const seen = [];
  const { outcome } = await execution.settle({
    onEvent: (e) => {
      const task = taskViewFromExecutionEvent(e);
      if (task) {
        const last = seen[seen.length - 1];
        if (!last || last.status !== task.status || last.statusMessage !== task.statusMessage) {
          seen.push({ status: task.status, statusMessage: task.statusMessage });
        }
      }
    },
  });
  say({ event: "outcome", status: outcome.status });
  say({ event: "result", result: resultFromTaskOutcome(outcome) });
  say({ event: "heard", tasks: seen, progress, elicited });
  await session.close();
  await client.close();
  say({ event: "closed", errors });
  process.exit(0);
} catch (e) {
  say({ event: "error", message: String((e && e.message) || e), code: e && e.code, errors });
  process.exit(1);
}

/**
 * The host-owned request path the package needs for the extension's requests in the sessionless
 * era: one POST per request with the revision's routing headers, the answer read from JSON or
 * from the request's event stream (the response is the message that carries the request's id).
 */
function rawDispatchFor(version) {
  let next = 1;
  const nameFields = { "tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" };
  return async (request, options = {}) => {
    const id = `ext-tasks-${next++}`;
    const body = { ...request, jsonrpc: "2.0", id };
    const field = nameFields[body.method];
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": version,
      "Mcp-Method": body.method,
      ...(field && typeof body.params?.[field] === "string" ? { "Mcp-Name": body.params[field] } : {}),
      ...authorization,
      ...(options.context?.headers ?? {}),
    };
    const response = await fetch(base + "/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: options.signal,
    });
    const type = response.headers.get("content-type") ?? "";
    const messages = type.startsWith("text/event-stream")
      ? (await response.text())
          .split(/\r?\n\r?\n/)
          .map((event) =>
            event
              .split(/\r?\n/)
              .filter((l) => l.startsWith("data:"))
              .map((l) => l.slice(5).trimStart())
              .join("\n"),
          )
          .filter((data) => data.length > 0)
          .map((data) => JSON.parse(data))
      : [await response.json()];
    for (const m of messages) {
      if (m.method === "notifications/progress") {
        progress.push({ progress: m.params.progress, total: m.params.total, message: m.params.message });
      }
    }
    const answer = messages.find((m) => m.id === id);
    if (!answer) {
      throw new Error(`no answer to ${body.method} (HTTP ${response.status})`);
    }
    return answer.error ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
  };
}
