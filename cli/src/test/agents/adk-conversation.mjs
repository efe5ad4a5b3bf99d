// Google ADK's RemoteA2AAgent, run by an InMemoryRunner as a person's chat would be: each turn is a
// new user message in the same session (ADK sends the A2A contextId, not the task id). Prints one
// JSON line per turn with every text the agent answered, every error it reported (a failed task's
// status message) and the A2A task ids it saw.
// usage: node adk-conversation.mjs <gateway-url> <skill> <turn> [<turn> ...]
import { InMemoryRunner, RemoteA2AAgent } from "@google/adk";

const [base, skill, ...turns] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const agent = new RemoteA2AAgent({
  name: "taskmesh",
  description: "the taskmesh gateway",
  agentCard: base,
  beforeRequestCallbacks: [
    (_ctx, params) => {
      params.metadata = { ...(params.metadata ?? {}), skill };
    },
  ],
});
const runner = new InMemoryRunner({ agent, appName: "taskmesh-it" });
const session = await runner.sessionService.createSession({ appName: "taskmesh-it", userId: "it" });
for (const text of turns) {
  const texts = [];
  const errors = [];
  const tasks = new Set();
  for await (const event of runner.runAsync({
    userId: "it",
    sessionId: session.id,
    newMessage: { role: "user", parts: [{ text }] },
  })) {
    for (const part of event.content?.parts ?? []) {
      if (typeof part.text === "string" && part.text.length > 0) texts.push(part.text);
    }
    if (event.errorMessage) errors.push(event.errorMessage);
    const task = event.customMetadata?.a2a_task_id ?? event.customMetadata?.["a2a:task_id"];
    if (task) tasks.add(task);
  }
  say({ event: "turn", said: text, texts, errors, tasks: [...tasks] });
}
