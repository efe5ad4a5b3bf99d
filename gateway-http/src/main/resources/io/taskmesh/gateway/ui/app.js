// The taskmesh dashboard: plain JavaScript over the gateway's own routes. Live parts use the
// gateway's event streams (GET /tasks/stream, GET /stream/{id}); nothing polls.
'use strict';

const TOKEN_KEY = 'taskmesh.token';
const FINAL = new Set(['succeeded', 'failed', 'canceled']);
// FLY events arrive as `partial` or as the type their payload names (spec: event types)
const FLY_TYPES = ['partial', 'progress', 'status', 'token', 'artifact_update', 'status_update', 'message'];
const RENEW_SESSION_MS = 5 * 60 * 1000;

const state = { flows: [], tasks: new Map(), listStream: null, taskStream: null, renew: null,
  envelopes: new Map(), meshStream: null, meshSelected: null };

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c ?? ''));
  return e;
}

class Unauthorized extends Error {}

/** fetch with the stored token as a bearer header; a 401 sends the person to the sign-in form. */
async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = 'Bearer ' + token;
  const r = await fetch(path, Object.assign({}, options, { headers }));
  if (r.status === 401) throw new Unauthorized();
  if (!r.ok) throw new Error((await r.text()) || r.status + ' ' + r.statusText);
  const type = r.headers.get('Content-Type') || '';
  return type.startsWith('application/json') ? r.json() : null;
}

/** The event streams cannot send headers: the gateway turns the token into a short cookie. */
async function openSession() {
  await api('/ui/session', { method: 'POST' });
  clearInterval(state.renew);
  state.renew = setInterval(() => api('/ui/session', { method: 'POST' }).catch(showLogin), RENEW_SESSION_MS);
}

function showLogin(err) {
  if (err && !(err instanceof Unauthorized)) { console.error(err); return; }
  closeStreams();
  for (const id of ['home', 'task', 'eval']) $(id).hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = sessionStorage.getItem(TOKEN_KEY) ? 'The gateway refused this token.' : '';
  sessionStorage.removeItem(TOKEN_KEY);
}

function closeStreams() {
  for (const k of ['listStream', 'taskStream', 'meshStream']) {
    if (state[k]) { state[k].close(); state[k] = null; }
  }
}

function setConnected(ok, text) {
  $('conn').textContent = text;
  $('conn').classList.toggle('ok', ok);
}

// ---- time -----------------------------------------------------------------------------------

function time(ts) {
  if (!ts) return '';
  const d = new Date(ts);
  return isNaN(d) ? ts : d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}

function duration(from, to) {
  const ms = new Date(to) - new Date(from);
  if (!(ms >= 0)) return '';
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
}

// ---- flows and the start form ---------------------------------------------------------------

async function loadFlows() {
  const flows = (await api('/ui/flows')).flows;
  if (JSON.stringify(flows) === JSON.stringify(state.flows)) return; // keep what someone typed
  state.flows = flows;
  const box = $('flows');
  box.replaceChildren(...state.flows.map(flowCard));
  const select = $('filter-flow');
  const current = select.value;
  select.replaceChildren(el('option', { value: '' }, 'any'), ...state.flows.map((f) => el('option', {}, f.name)));
  select.value = current;
}

function flowCard(flow) {
  const schema = flow.inputSchema || {};
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const fields = Object.entries(props).map(([name, s]) => field(flow.name, name, s, required.has(name)));
  if (fields.length === 0) {
    fields.push(el('label', {}, 'arguments (JSON object)',
      el('textarea', { name: '$json', rows: '2', 'data-kind': 'json', placeholder: '{}' })));
  }
  const error = el('div', { class: 'error' });
  const form = el('form', { 'data-flow': flow.name }, ...fields, el('button', { type: 'submit' }, 'Start'), error);
  form.addEventListener('submit', (e) => { e.preventDefault(); startFlow(flow, form, error); });
  return el('div', { class: 'flow', id: 'flow-' + flow.name },
    el('h4', {}, flow.name),
    el('div', { class: 'route-names' }, (flow.route || []).join(' → ')),
    el('p', {}, flow.description || ''),
    form);
}

function field(flow, name, s, isRequired) {
  const label = [name, isRequired ? el('span', { class: 'req' }, ' *') : ''];
  if (s.description) label.push(el('span', { class: 'muted' }, ' — ' + s.description));
  let input;
  const attrs = { name, id: 'arg-' + flow + '-' + name };
  if (isRequired) attrs.required = '';
  if (Array.isArray(s.enum)) {
    input = el('select', attrs, ...s.enum.map((v) => el('option', { value: JSON.stringify(v) }, String(v))));
    input.dataset.kind = 'json';
  } else if (s.type === 'boolean') {
    input = el('input', Object.assign(attrs, { type: 'checkbox' }));
    input.dataset.kind = 'boolean';
  } else if (s.type === 'integer' || s.type === 'number') {
    Object.assign(attrs, { type: 'number', step: s.type === 'integer' ? '1' : 'any' });
    if (s.minimum !== undefined) attrs.min = s.minimum;
    if (s.maximum !== undefined) attrs.max = s.maximum;
    input = el('input', attrs);
    input.dataset.kind = 'number';
  } else if (s.type === 'object' || s.type === 'array') {
    input = el('textarea', Object.assign(attrs, { rows: '2', placeholder: s.type === 'array' ? '[]' : '{}' }));
    input.dataset.kind = 'json';
  } else {
    input = el('input', Object.assign(attrs, { type: 'text' }));
    input.dataset.kind = 'text';
  }
  return el('label', {}, ...label, input);
}

/** The form's values as the tool's arguments; empty optional fields are left out. */
function argumentsOf(form) {
  const args = {};
  for (const input of form.querySelectorAll('[data-kind]')) {
    const kind = input.dataset.kind;
    if (kind === 'boolean') { args[input.name] = input.checked; continue; }
    const raw = input.value.trim();
    if (raw === '' && !input.required) continue;
    if (kind === 'number') args[input.name] = Number(raw);
    else if (kind === 'json') {
      let v;
      try { v = JSON.parse(raw || '{}'); } catch (e) { throw new Error(input.name.replace('$json', 'arguments') + ': not JSON (' + e.message + ')', { cause: e }); }
      if (input.name === '$json') Object.assign(args, v); else args[input.name] = v;
    } else args[input.name] = input.value;
  }
  return args;
}

async function startFlow(flow, form, error) {
  error.textContent = '';
  const button = form.querySelector('button');
  button.disabled = true;
  try {
    const args = argumentsOf(form);
    let id;
    if (flow.a2a) {
      id = await startSkill(flow.name, args);
    } else {
      const answer = await api('/tools/call', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: flow.name, arguments: args }),
      });
      id = answer.structuredContent.task_id;
    }
    location.hash = '#task/' + id;
  } catch (e) {
    if (e instanceof Unauthorized) showLogin(e); else error.textContent = e.message;
  } finally {
    button.disabled = false;
  }
}

/** A flow served only as an A2A skill: started as its own task of this caller, input as typed. */
async function startSkill(skill, args) {
  const answer = await api('/ui/flows/' + encodeURIComponent(skill) + '/start', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
  });
  return answer.task_id;
}

// ---- the live task list -----------------------------------------------------------------------

function showHome() {
  closeStreams();
  $('task').hidden = true;
  $('eval').hidden = true;
  $('home').hidden = false;
  // the stream first, then the list: a task started in between is in one or the other
  const es = new EventSource('/tasks/stream');
  state.listStream = es;
  es.onopen = () => setConnected(true, 'live');
  es.onerror = () => setConnected(false, 'reconnecting…');
  es.addEventListener('update', (e) => onListUpdate(JSON.parse(e.data)));
  loadFlows().then(loadTasks).then(showEnvelopes).catch(showLogin);
}

async function loadTasks() {
  const q = new URLSearchParams({ limit: '100' });
  if ($('filter-status').value) q.set('status', $('filter-status').value);
  if ($('filter-flow').value) q.set('flow', $('filter-flow').value);
  const page = await api('/tasks?' + q);
  for (const t of page.tasks) {
    const known = state.tasks.get(t.id);
    if (!known || (known.updated_at || '') <= (t.updated_at || '')) state.tasks.set(t.id, Object.assign(known || {}, t));
  }
  renderTasks();
}

async function onListUpdate(u) {
  let t = state.tasks.get(u.id);
  if (!t) {
    // a task this page has not seen: its flow and creation time come from the task itself
    t = { id: u.id, flow: u.flow, status: u.status, progress_percent: u.progress_percent, created_at: u.timestamp };
    state.tasks.set(u.id, t);
    if (u.seq > 1) {
      // joined late: the creation time comes from the task itself
      api('/tasks/' + u.id).then((full) => { Object.assign(t, full, latest(t)); renderTasks(); }).catch(() => {});
    }
  }
  if ((t.seq || 0) >= u.seq) return;
  t.seq = u.seq;
  if (u.status) t.status = u.status;
  if (u.progress_percent !== null && u.progress_percent !== undefined) t.progress_percent = u.progress_percent;
  if (u.status === 'succeeded') t.progress_percent = 100;
  t.updated_at = u.timestamp;
  renderTasks();
}

/** What the live feed already told about a task, which a slower GET must not undo. */
function latest(t) {
  return { seq: t.seq, status: t.status, progress_percent: t.progress_percent, updated_at: t.updated_at };
}

function renderTasks() {
  const status = $('filter-status').value;
  const flow = $('filter-flow').value;
  const rows = [...state.tasks.values()]
    .filter((t) => (!status || t.status === status) && (!flow || t.flow === flow))
    .sort((a, b) => (b.created_at || '').localeCompare(a.created_at || ''));
  const body = $('task-rows');
  // rows are kept and changed in place (a status changes where it is); only their order is redone
  const wanted = new Set(rows.map((t) => t.id));
  for (const tr of [...body.children]) if (!wanted.has(tr.dataset.task)) tr.remove();
  for (const t of rows) body.append(taskRow(t));
  $('no-tasks').hidden = rows.length > 0;
}

function taskRow(t) {
  let row = t.row;
  if (!row) {
    row = el('tr', { 'data-task': t.id, class: 'fresh' },
      el('td', {}, el('a', { href: '#task/' + t.id }, el('code', {}, t.id.slice(0, 8)))),
      el('td'), el('td', {}, el('span')), el('td', {}, el('span', { class: 'bar' }, el('div')), el('span')),
      el('td'), el('td'));
    row.addEventListener('animationend', () => row.classList.remove('fresh'));
    t.row = row;
  }
  const cells = row.children;
  const percent = Math.round(t.progress_percent || 0);
  cells[1].textContent = t.flow || '';
  cells[2].firstChild.textContent = t.status || '';
  cells[2].firstChild.className = 'status ' + t.status;
  cells[3].firstChild.firstChild.style.width = percent + '%';
  cells[3].lastChild.textContent = ' ' + percent + '%';
  cells[4].textContent = time(t.created_at);
  cells[5].textContent = time(t.updated_at);
  return row;
}

// ---- one task -------------------------------------------------------------------------------

function showTask(id) {
  closeStreams();
  $('home').hidden = true;
  $('eval').hidden = true;
  $('task').hidden = false;
  const view = { id, actors: [], seq: 0, status: 'pending', percent: 0, created: null, last: null };
  $('task-id').textContent = id;
  $('task-flow').textContent = '';
  $('tokens').textContent = '';
  $('updates').replaceChildren();
  $('outcome').textContent = 'not yet';
  $('outcome').className = 'outcome muted';
  $('outcome-title').textContent = 'Result';
  $('route').replaceChildren();
  $('task-cancel').hidden = true;
  $('task-cancel').onclick = () => api('/tasks/' + id + '/cancel', { method: 'POST' }).catch((e) => alert(e.message));
  $('ask').hidden = true;
  $('traceback').hidden = true;
  $('ask').onsubmit = (e) => { e.preventDefault(); answerTask(id); };
  renderSummary(view);
  const listed = state.tasks.get(id);
  $('task-flow').textContent = listed && listed.flow ? '(' + listed.flow + ')' : '';
  api('/tasks/' + id).catch(showLogin); // a task that is not the caller's: 404 in the stream too
  const es = new EventSource('/stream/' + encodeURIComponent(id));
  state.taskStream = es;
  es.onopen = () => setConnected(true, 'live');
  es.onerror = () => {
    if (FINAL.has(view.status)) { es.close(); setConnected(true, 'done'); } else setConnected(false, 'reconnecting…');
  };
  es.addEventListener('update', (e) => {
    onTaskUpdate(view, JSON.parse(e.data));
    if (FINAL.has(view.status)) { es.close(); setConnected(true, 'done'); }
  });
  for (const type of FLY_TYPES) es.addEventListener(type, (e) => onFly(JSON.parse(e.data)));
}

function onFly(fly) {
  const text = typeof fly.text === 'string' ? fly.text : typeof fly.token === 'string' ? fly.token : JSON.stringify(fly) + '\n';
  $('tokens').append(text);
}

function onTaskUpdate(view, u) {
  if (u.seq <= view.seq) return;
  view.seq = u.seq;
  view.created = view.created || u.timestamp;
  view.last = u.timestamp;
  if (Array.isArray(u.actors) && u.actors.length > view.actors.length) {
    const known = view.actors;
    view.actors = u.actors.map((name, i) => known[i] || { name, state: 'waiting', started: null, ended: null });
  }
  if (u.status) view.status = u.status;
  if (u.progress_percent !== null && u.progress_percent !== undefined) view.percent = u.progress_percent;
  if (u.actor_state) {
    let i = Number.isInteger(u.current_actor_idx) ? u.current_actor_idx : view.actors.findIndex((a) => a.name === u.actor);
    if (i < 0 || i >= view.actors.length) {
      view.actors.push({ name: u.actor, state: 'waiting', started: null, ended: null });
      i = view.actors.length - 1;
    }
    for (let j = 0; j < i; j++) finishActor(view.actors[j], u.timestamp);
    const a = view.actors[i];
    a.state = u.actor_state;
    a.started = a.started || u.timestamp;
    if (u.actor_state === 'completed') a.ended = a.ended || u.timestamp;
  }
  if (u.status === 'succeeded') {
    view.percent = 100;
    view.actors.forEach((a) => finishActor(a, u.timestamp));
  }
  if (u.result !== undefined && u.result !== null) {
    $('outcome').textContent = JSON.stringify(u.result, null, 2);
    $('outcome').className = 'outcome';
  }
  // a paused task's question, with a box to answer it; any later update means it was answered
  $('ask').hidden = u.status !== 'paused';
  if (u.status === 'paused') {
    $('ask-question').textContent = u.question || u.message || 'The task waits for input.';
    $('ask-error').textContent = '';
  }
  if (u.error) {
    $('outcome-title').textContent = 'Error';
    const at = u.error_details && u.error_details.actor ? ' (in actor ' + u.error_details.actor + ')' : '';
    $('outcome').textContent = u.error + at;
    $('outcome').className = 'outcome failed';
    if (u.error_details && u.error_details.traceback) {
      $('traceback-title').textContent = 'Traceback of ' + (u.error_details.actor || 'the handler');
      $('traceback-text').textContent = u.error_details.traceback;
      $('traceback').hidden = false;
    }
  } else if (FINAL.has(u.status) && u.status !== 'succeeded') {
    $('outcome-title').textContent = u.status === 'canceled' ? 'Canceled' : 'Error';
    $('outcome').textContent = u.message || u.status;
    $('outcome').className = 'outcome failed';
  }
  $('updates').append(el('tr', {},
    el('td', {}, String(u.seq)), el('td', {}, time(u.timestamp)), el('td', {}, u.status || ''),
    el('td', {}, u.actor || ''), el('td', {}, u.actor_state || ''), el('td', {}, u.message || '')));
  renderSummary(view);
  renderRoute(view);
}

async function answerTask(id) {
  const text = $('ask-answer').value;
  try {
    await api('/tasks/' + encodeURIComponent(id) + '/input', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text }) });
    $('ask-answer').value = '';
    $('ask').hidden = true;
  } catch (e) {
    if (e instanceof Unauthorized) showLogin(e); else $('ask-error').textContent = e.message;
  }
}

function finishActor(a, ts) {
  if (a.state !== 'completed') {
    a.state = 'completed';
    a.started = a.started || ts;
    a.ended = ts;
  }
}

function renderSummary(view) {
  const s = $('task-status');
  s.textContent = view.status;
  s.className = 'status ' + view.status;
  $('task-bar').style.width = Math.round(view.percent) + '%';
  $('task-percent').textContent = Math.round(view.percent) + '%';
  $('task-cancel').hidden = FINAL.has(view.status) || view.seq === 0;
  const total = view.created && FINAL.has(view.status) ? ' · took ' + duration(view.created, view.last) : '';
  $('task-times').textContent = view.created ? 'created ' + time(view.created) + ' · last update ' + time(view.last) + total : '';
}

function renderRoute(view) {
  $('route').replaceChildren(...view.actors.map((a, i) => {
    const times = a.started ? time(a.started) + (a.ended ? ' → ' + time(a.ended) + ' (' + duration(a.started, a.ended) + ')' : ' → …') : '';
    return el('li', { class: 'actor ' + a.state, 'data-actor': a.name },
      el('div', { class: 'name' }, (i + 1) + '. ' + a.name),
      el('div', { class: 'fill' }, el('div')),
      el('div', { class: 'state' }, a.state),
      el('div', { class: 'time' }, times));
  }));
}

// ---- mesh-api envelopes (GET /ui/mesh, /ui/mesh/{id}, /ui/mesh/stream) ----------------------

async function showEnvelopes() {
  // the stream first, then the list: an envelope that changes in between is in one or the other
  const es = new EventSource('/ui/mesh/stream');
  state.meshStream = es;
  es.addEventListener('status', (e) => onEnvelopeStatus(JSON.parse(e.data)));
  es.onopen = () => { $('mesh-live').hidden = false; };
  // a gateway without mesh-api answers 404 here, which ends the EventSource for good
  es.onerror = () => { $('mesh-live').hidden = true; };
  const page = await api('/ui/mesh?limit=50');
  state.meshConfigured = page.configured !== false;
  if (!state.meshConfigured) {
    es.close();
    $('mesh-table').hidden = true;
    $('mesh-note').hidden = false;
    $('mesh-note').textContent = 'mesh-api not configured on this gateway (SVC_UI_MESH_API_URL is not set).';
    return;
  }
  for (const m of page.messages || []) {
    const known = state.envelopes.get(m.id);
    if (!known || (known.updated_at || '') <= (m.updated_at || '')) state.envelopes.set(m.id, envelopeRow(m));
  }
  renderEnvelopes();
}

function envelopeRow(m) {
  const d = m.data || {};
  return { id: m.id, status: m.status, actor: d.current_actor || d.actor || '', progress: d.progress || 0,
    created_at: m.created_at, updated_at: m.updated_at };
}

async function onEnvelopeStatus(ev) {
  let m = state.envelopes.get(ev.id);
  if (!m) {
    // an envelope this page has not listed yet: its creation time comes from mesh-api
    m = { id: ev.id, status: ev.status, actor: ev.actor || '', progress: ev.progress || 0, created_at: ev.at };
    state.envelopes.set(ev.id, m);
    api('/ui/mesh/' + encodeURIComponent(ev.id)).then((full) => {
      m.created_at = full.created_at;
      renderEnvelopes();
    }).catch(() => {});
  }
  m.status = ev.status;
  if (ev.actor) m.actor = ev.actor;
  if (ev.progress !== undefined && ev.progress !== null) m.progress = ev.progress;
  if (ev.status === 'succeeded') m.progress = 100;
  m.updated_at = ev.at;
  renderEnvelopes();
  if (state.meshSelected === ev.id) showEnvelope(ev.id);
}

function renderEnvelopes() {
  $('mesh-note').hidden = state.envelopes.size > 0;
  $('mesh-note').textContent = 'No envelopes yet.';
  $('mesh-table').hidden = state.envelopes.size === 0;
  const rows = [...state.envelopes.values()].sort((a, b) => (b.created_at || '').localeCompare(a.created_at || ''));
  $('mesh-rows').replaceChildren(...rows.slice(0, 100).map((m) => {
    const pct = Math.max(0, Math.min(100, Number(m.progress) || 0));
    const fill = el('div');
    fill.style.width = pct + '%'; // a style attribute would be refused by the page's CSP
    const row = el('tr', { class: 'envelope' + (state.meshSelected === m.id ? ' selected' : ''), id: 'envelope-' + m.id,
      onclick: () => showEnvelope(m.id) },
      el('td', {}, el('code', {}, m.id)),
      el('td', {}, el('span', { class: 'status ' + m.status }, m.status)),
      el('td', {}, m.actor),
      el('td', {}, el('div', { class: 'bar' }, fill), ' ' + Math.round(pct) + '%'),
      el('td', {}, time(m.created_at)),
      el('td', {}, time(m.updated_at)));
    return row;
  }));
}

/** The envelope as mesh-api keeps it; read again on each of its status events. */
async function showEnvelope(id) {
  state.meshSelected = id;
  $('mesh-detail').hidden = false;
  $('mesh-detail-id').textContent = id;
  try {
    $('mesh-detail-body').textContent = JSON.stringify(await api('/ui/mesh/' + encodeURIComponent(id)), null, 2);
  } catch (e) {
    if (e instanceof Unauthorized) { showLogin(e); return; }
    $('mesh-detail-body').textContent = e.message;
  }
  renderEnvelopes();
}

// ---- a replay-eval report -------------------------------------------------------------------

/** The most envelopes drawn; the rest stay in the report file. */
const EVAL_ROWS = 500;

function evalSide(side) {
  if (!side) return el('span', { class: 'muted' }, 'none');
  if (side.error) {
    return el('pre', { class: 'outcome failed' }, side.error + (side.traceback ? '\n\n' + side.traceback : ''));
  }
  if (!side.outputs) return el('span', { class: 'muted' }, 'no output found');
  const shown = side.outputs.length === 1 ? side.outputs[0] : side.outputs;
  return el('pre', { class: 'outcome' }, JSON.stringify(shown, null, 2));
}

function evalDiff(diff) {
  if (!diff) return '';
  return el('ul', {}, ...diff.map((d) => el('li', {}, el('code', {}, d.path || '/'), ' ' + d.change)));
}

async function showEval(id) {
  closeStreams();
  $('home').hidden = true;
  $('task').hidden = true;
  $('eval').hidden = false;
  $('eval-id').textContent = id;
  $('eval-summary').textContent = 'loading…';
  $('eval-gate').textContent = '';
  $('eval-rows').replaceChildren();
  let report;
  try {
    report = await api('/ui/evals/' + encodeURIComponent(id));
  } catch (e) {
    if (e instanceof Unauthorized) { showLogin(e); return; }
    $('eval-summary').textContent = e.message;
    return;
  }
  const s = report.summary || {};
  const c = s.candidate_latency || {};
  const l = s.live_latency || {};
  $('eval-summary').textContent = `actor ${report.actor}, candidate ${report.candidate.handler}: ${s.total} envelopes; ` +
    `equal ${s.equal}, different ${s.different}, candidate errors ${s.candidate_error}, live errors ${s.live_error}, ` +
    `no live output ${s.no_live_output}; p50/p99 candidate ${c.p50_ms ?? '-'}/${c.p99_ms ?? '-'} ms, ` +
    `live ${l.p50_ms ?? '-'}/${l.p99_ms ?? '-'} ms` + (s.score ? `; mean score ${s.score.mean}` : '');
  if (report.gate) {
    $('eval-gate').textContent = `gate '${report.gate.expression}': ` +
      (report.gate.failed ? 'FAILED (' + report.gate.held.join('; ') + ')' : 'passed');
  }
  const rows = report.envelopes.slice(0, EVAL_ROWS).map((e) => el('tr', { class: 'verdict-' + e.verdict },
    el('td', {}, el('code', {}, e.id)),
    el('td', {}, e.verdict),
    el('td', {}, evalSide(e.live)),
    el('td', {}, evalSide(e.candidate)),
    el('td', {}, evalDiff(e.diff))));
  $('eval-rows').replaceChildren(...rows);
  $('eval-more').textContent = report.envelopes.length > EVAL_ROWS
    ? `${report.envelopes.length - EVAL_ROWS} more envelopes in the report file` : '';
}

// ---- start ----------------------------------------------------------------------------------

function route() {
  const m = location.hash.match(/^#task\/(.+)$/);
  const ev = location.hash.match(/^#evals\/(.+)$/);
  if (m) showTask(decodeURIComponent(m[1]));
  else if (ev) showEval(decodeURIComponent(ev[1]));
  else showHome();
}

async function start() {
  $('login').hidden = true;
  try {
    await openSession();
  } catch (e) {
    showLogin(e);
    return;
  }
  $('signout').hidden = !sessionStorage.getItem(TOKEN_KEY);
  route();
}

window.addEventListener('hashchange', route);
window.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('login-token').value.trim());
    $('login-token').value = '';
    start();
  });
  $('signout').addEventListener('click', async () => {
    await fetch('/ui/session', { method: 'DELETE' });
    sessionStorage.removeItem(TOKEN_KEY);
    location.hash = '';
    showLogin();
    $('login-error').textContent = '';
  });
  $('mesh-detail-close').addEventListener('click', () => {
    state.meshSelected = null;
    $('mesh-detail').hidden = true;
    renderEnvelopes();
  });
  for (const id of ['filter-status', 'filter-flow']) {
    $(id).addEventListener('change', () => { renderTasks(); loadTasks().catch(showLogin); });
  }
  start();
});
