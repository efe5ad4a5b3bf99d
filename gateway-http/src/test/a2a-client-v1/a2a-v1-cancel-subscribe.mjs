// CancelTask and SubscribeToTask with the official A2A JS SDK 1.x client (@a2a-js/sdk 1.x, as
// installed for the unmodified a2a-client-v1.mjs, which covers send, stream, get and list).
//   node a2a-v1-cancel-subscribe.mjs <base-url> [bearer-token]
// Run from a folder whose node_modules holds the SDK. Needs a default skill that runs for a few
// seconds (the examples' countdown). Prints "ok: <step>" per step; exit 0 = every step ok.
import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, DefaultAgentCardResolver,
} from '@a2a-js/sdk/client';

const [base, token] = process.argv.slice(2);
const fetchImpl = (url, init = {}) => {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers });
};
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
const client = await factory.createFromUrl(base, '.well-known/agent-card.json');
// names no skill, as a standard client does: the agent's default skill runs
const message = (text) => ({ messageId: randomUUID(), role: Role.ROLE_USER, contextId: '', taskId: '',
  metadata: undefined, extensions: [], referenceTaskIds: [],
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }] });
const later = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true };
const taskOf = (r) => r?.payload?.value ?? r?.task ?? r;
const stateOf = (t) => String(t?.status?.state);
let fails = 0;
const check = (name, ok, detail) => {
  if (!ok) fails++;
  console.log(`${ok ? 'ok' : 'FAIL'}: ${name} -> ${detail}`);
};

// SendMessage (returnImmediately) then CancelTask while the task runs
const running = taskOf(await client.sendMessage({ message: message('cancel me'), configuration: later }));
const canceled = await client.cancelTask({ id: running.id, metadata: undefined });
check('CancelTask', [String(TaskState.TASK_STATE_CANCELED), 'TASK_STATE_CANCELED'].includes(stateOf(canceled)),
  `${running.id} ${stateOf(running)} -> ${stateOf(canceled)}`);

// SendMessage (returnImmediately) then SubscribeToTask: the task first, then its events to the end
const watched = taskOf(await client.sendMessage({ message: message('watch me'), configuration: later }));
const events = [];
for await (const ev of client.resubscribeTask({ id: watched.id })) {
  events.push(ev);
}
const kinds = events.map((e) => e?.payload?.$case ?? e?.kind ?? Object.keys(e).join('/'));
const last = events.at(-1);
const lastState = stateOf(last?.payload?.value ?? last?.statusUpdate ?? last);
check('SubscribeToTask', events.length >= 2, `${events.length} events: ${kinds.join(', ')}; last state ${lastState}`);
console.log(fails ? `A2A v1 CANCEL/SUBSCRIBE: ${fails} step(s) failed` : 'A2A v1 CANCEL/SUBSCRIBE: ALL OK');
process.exitCode = fails ? 1 : 0;
