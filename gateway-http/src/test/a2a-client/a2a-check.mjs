// A real A2A 0.3 client (@a2a-js/sdk) against the gateway. Run by A2aClientIT:
//   node a2a-check.mjs <base-url> <api-key>
// Prints one JSON line per step on stdout; the Java test reads them and plays the sidecar
// (posts FLY and final reports) when a line asks for it ("need": ...).
import { A2AClient } from "@a2a-js/sdk/client";
import { randomUUID } from "node:crypto";

const [base, apiKey] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const fetchImpl = (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set("X-API-Key", apiKey);
  return fetch(url, { ...init, headers });
};
// names no skill, as a standard client does: the agent's default skill runs
const message = (text) => ({
  message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text }] },
});

const client = await A2AClient.fromCardUrl(base + "/.well-known/agent-card.json", { fetchImpl });
const card = await client.getAgentCard();
out({ step: "card", name: card.name, protocolVersion: card.protocolVersion, skills: card.skills.map((s) => s.id) });

// message/stream: the test finishes the task when it sees the first event
const events = [];
for await (const event of client.sendMessageStream(message("stream me"))) {
  events.push(event);
  if (events.length === 1) out({ step: "stream-started", taskId: event.id, need: "fly-and-final" });
}
out({ step: "stream-done", events });
const streamedId = events[0].id;

// tasks/get
const got0 = await client.getTask({ id: streamedId, historyLength: 1 });
const got = got0.result ?? got0;
out({ step: "get", state: got.status.state, history: got.history.length });

// message/send (non-blocking) then tasks/cancel
const sent = await client.sendMessage({ ...message("cancel me"), configuration: { blocking: false } });
const sentTask = sent.result ?? sent;
const canceled = await client.cancelTask({ id: sentTask.id });
out({ step: "cancel", sentState: sentTask.status.state, state: (canceled.result ?? canceled).status.state });

// tasks/resubscribe: the test finishes the task when asked
const third = await client.sendMessage({ ...message("resubscribe me"), configuration: { blocking: false } });
const thirdTask = third.result ?? third;
const resubscribed = [];
for await (const event of client.resubscribeTask({ id: thirdTask.id })) {
  resubscribed.push(event);
  if (resubscribed.length === 1) out({ step: "resubscribed", taskId: thirdTask.id, need: "final" });
}
out({ step: "resubscribe-done", events: resubscribed });

// tasks/get of an unknown task: the A2A task-not-found error
try {
  const r = await client.getTask({ id: "no-such-task" });
  out({ step: "unknown", error: r.error ? r.error.message : null, code: r.error ? r.error.code : null });
} catch (e) {
  out({ step: "unknown", error: String(e.message || e), code: e.errorResponse?.error?.code ?? null });
}
out({ step: "end" });
