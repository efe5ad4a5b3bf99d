// taskmesh against Restate, side by side, one driver: the same three-step job (upper -> reverse
// -> count), every answer checked. Prints one table with the ratios, the load average before and
// after each system's run, and writes the figures as JSON. Usage: see README.md.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { cpuByProcess, cpuSeconds, loadAverage, memory } from "./procs.mjs";
import { restate, taskmesh, workDir } from "./systems.mjs";

const { values: opt } = parseArgs({
  options: {
    sequential: { type: "string", default: "300" },
    clients: { type: "string", default: "32" },
    seconds: { type: "string", default: "30" },
    idle: { type: "string", default: "30" },
    // the warm-up, not measured, before a mode's figures: the 32-client load in rounds of
    // --warmup-round seconds, at least --warmup and at most --warmup-max seconds, until the CPU per
    // task has stopped falling (see warmUp); the first tasks after the first answer are reported
    // apart ("cold"). --warmup 0: none.
    warmup: { type: "string", default: "30" },
    "warmup-max": { type: "string", default: "300" },
    "warmup-round": { type: "string", default: "10" },
    // before the one-in-flight phase, the same pattern unmeasured, in rounds of this many tasks,
    // until the p50 of a round has stopped falling (see settleOneInFlight); 0: none
    "sequential-warmup": { type: "string", default: "50" },
    only: { type: "string" },
    json: { type: "string" },
    // how long to wait, at most, for the load average to fall below 1.5 before each system
    quiet: { type: "string", default: "300" },
  },
});
const SEQUENTIAL = Number(opt.sequential);
const CLIENTS = Number(opt.clients);
const SECONDS = Number(opt.seconds);
const IDLE = Number(opt.idle);
const WARMUP = Number(opt.warmup);
const WARMUP_MAX = Math.max(WARMUP, Number(opt["warmup-max"]));
const WARMUP_ROUND = Number(opt["warmup-round"]);
const SEQUENTIAL_ROUND = Number(opt["sequential-warmup"]);
/** The one-in-flight rounds end by this many tasks at the most. */
const SEQUENTIAL_WARMUP_MAX = 20 * SEQUENTIAL_ROUND;
/** A round whose CPU per task is not below the lowest so far by this much is "flat". */
const SETTLED_WITHIN = 0.03;
/** Flat rounds in a row that end the warm-up. */
const FLAT_ROUNDS = 3;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What the three steps make of {@code text} (runtime/examples/text.py). */
function expected(text) {
  const t = [...text.toUpperCase()].reverse().join("");
  return { text: t, steps: ["upper", "reverse", "count"], length: [...t].length };
}

function check(text, answer) {
  const want = expected(text);
  const ok =
    answer &&
    answer.text === want.text &&
    answer.length === want.length &&
    JSON.stringify(answer.steps) === JSON.stringify(want.steps);
  if (!ok) {
    throw new Error(`wrong answer for "${text}": ${JSON.stringify(answer)}`);
  }
}

let n = 0;
const nextText = () => `task ${++n} ${Math.random().toString(36).slice(2, 8)} héllo`;

async function firstAnswer(system, call) {
  for (const deadline = Date.now() + 600_000; Date.now() < deadline; ) {
    const text = nextText();
    try {
      check(text, await call(text));
      const firstAnswer = (Date.now() - system.started) / 1000;
      while (system.name === "taskmesh" && system.readyLine() === null && Date.now() < deadline) {
        await sleep(100); // the line follows the last actor's start; an answer can come first
      }
      return { firstAnswer, ready: system.readyLine() };
    } catch (e) {
      if (e.message.startsWith("wrong answer")) {
        throw e;
      }
      await sleep(200); // not up yet
    }
  }
  throw new Error(`${system.name}: no answer within 10 minutes; see ${system.log}`);
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function sequential(call, count = SEQUENTIAL) {
  const ms = [];
  for (let i = 0; i < count; i++) {
    const text = nextText();
    const t0 = performance.now();
    const answer = await call(text);
    ms.push(performance.now() - t0);
    check(text, answer);
  }
  const inOrder = ms.map((v) => Number(v.toFixed(1)));
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), p90: percentile(ms, 0.9), p99: percentile(ms, 0.99), inOrder };
}

/** Sum and count of each of a system's own timers (seconds), from Prometheus text: {series: [sum, count]}. */
function timers(text) {
  const out = {};
  for (const line of text.split("\n")) {
    const m = /^(taskmesh_\w+_seconds)_(sum|count)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m) {
      const series = `${m[1]}${m[3] ?? ""}`;
      out[series] ??= [0, 0];
      out[series][m[2] === "sum" ? 0 : 1] = Number(m[4]);
    }
  }
  return out;
}

/**
 * Tasks one after the other, unmeasured, in rounds of SEQUENTIAL_ROUND, until FLAT_ROUNDS rounds
 * in a row have not lowered the p50 by more than SETTLED_WITHIN below the lowest round so far (at
 * most SEQUENTIAL_WARMUP_MAX tasks). Right after the 32-client load a JVM deoptimizes and
 * recompiles the paths one task alone takes (decision 0019): this phase's own warm-up, the same
 * rule for both systems. Returns each round's p50, which the output shows.
 */
async function settleOneInFlight(call) {
  const p50ByRound = [];
  if (SEQUENTIAL_ROUND <= 0) {
    return p50ByRound;
  }
  let lowest = Infinity;
  let flat = 0;
  while (flat < FLAT_ROUNDS && p50ByRound.length * SEQUENTIAL_ROUND < SEQUENTIAL_WARMUP_MAX) {
    const { p50 } = await sequential(call, SEQUENTIAL_ROUND);
    p50ByRound.push(Number(p50.toFixed(1)));
    flat = p50 < lowest * (1 - SETTLED_WITHIN) ? 0 : flat + 1;
    lowest = Math.min(lowest, p50);
  }
  return p50ByRound;
}

/**
 * The one-in-flight phase, and where its time went: each process's CPU per task over it, and for a
 * system that exposes its timers, each timer's mean over it (ms) and how many times it ran per task.
 * A run whose p50 is off can then be told apart by the hop or the process that changed.
 */
async function sequentialExplained(system, call) {
  const sequentialWarmupP50ByRound = await settleOneInFlight(call);
  const before = cpuByProcess(system.pids());
  const timers0 = system.metrics ? timers(await system.metrics()) : null;
  const sequentialAt = new Date().toISOString(); // to find the phase in a system's own logs
  const result = await sequential(call);
  const cpu = {};
  for (const [key, seconds] of cpuSecondsSince(before, system)) {
    const ms = (seconds * 1000) / SEQUENTIAL;
    if (ms >= 0.005) {
      cpu[key] = Number(ms.toFixed(2));
    }
  }
  const { inOrder, ...figures } = result;
  const out = {
    ...figures,
    sequentialWarmupP50ByRound,
    sequentialAt,
    sequentialMsInOrder: inOrder,
    sequentialCpuMsPerTaskByProcess: cpu,
  };
  if (timers0) {
    const means = {};
    for (const [series, [sum, count]] of Object.entries(timers(await system.metrics()))) {
      const [sum0, count0] = timers0[series] ?? [0, 0];
      if (count > count0) {
        means[series] = {
          meanMs: Number(((1000 * (sum - sum0)) / (count - count0)).toFixed(3)),
          perTask: Number(((count - count0) / SEQUENTIAL).toFixed(2)),
        };
      }
    }
    out.sequentialTimers = means;
  }
  return out;
}

/** Each process's CPU seconds since {@code before} (a {@link cpuByProcess} of earlier), as entries. */
function cpuSecondsSince(before, system) {
  return Object.entries(cpuByProcess(system.pids())).map(([key, s]) => [key, s - (before[key] ?? 0)]);
}

async function concurrent(system, call, seconds = SECONDS) {
  const pids = system.pids();
  const cpu0 = cpuSeconds(pids);
  const byProcess0 = cpuByProcess(pids);
  const end = Date.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < end) {
        const text = nextText();
        check(text, await call(text));
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(system.pids()) - cpu0;
  // the same figure split by process (ms per task): which part of the system the CPU goes to
  const split = {};
  for (const [key, seconds] of cpuSecondsSince(byProcess0, system)) {
    const ms = (seconds * 1000) / done;
    if (ms >= 0.005) {
      split[key] = Number(ms.toFixed(2));
    }
  }
  return {
    tasksPerSecond: done / elapsed,
    cpuMsPerTask: (cpu * 1000) / done,
    tasks: done,
    cpuMsPerTaskByProcess: split,
  };
}

/**
 * Runs the 32-client load in rounds until the system is in its steady state: at least WARMUP
 * seconds, then until FLAT_ROUNDS rounds in a row have not lowered the CPU per task by more than
 * SETTLED_WITHIN, or WARMUP_MAX seconds. The same rule for both systems: a JVM's compilers keep
 * working (and its code keeps getting faster) for longer than 30 s on 2 cores, a native server
 * settles at once. Returns how long it took and each round's CPU per task, which the table shows.
 */
async function warmUp(system, call) {
  const t0 = Date.now();
  const cpuMsPerTaskByRound = [];
  let lowest = Infinity;
  let flat = 0;
  for (;;) {
    const round = await concurrent(system, call, WARMUP_ROUND);
    cpuMsPerTaskByRound.push(Number(round.cpuMsPerTask.toFixed(2)));
    flat = round.cpuMsPerTask < lowest * (1 - SETTLED_WITHIN) ? 0 : flat + 1;
    lowest = Math.min(lowest, round.cpuMsPerTask);
    const seconds = (Date.now() - t0) / 1000;
    if ((seconds >= WARMUP && flat >= FLAT_ROUNDS) || seconds >= WARMUP_MAX) {
      return { warmupSeconds: seconds, warmupCpuMsPerTaskByRound: cpuMsPerTaskByRound };
    }
  }
}

async function idle(system) {
  await sleep(5000); // let what the load left behind settle (commits, flushes)
  const pids = system.pids();
  const cpu0 = cpuSeconds(pids);
  const byProcess0 = cpuByProcess(pids);
  await sleep(IDLE * 1000);
  const idleCoresByProcess = {};
  for (const [key, seconds] of cpuSecondsSince(byProcess0, system)) {
    const cores = seconds / IDLE;
    if (cores >= 0.0005) {
      idleCoresByProcess[key] = Number(cores.toFixed(4));
    }
  }
  return { idleCores: (cpuSeconds(system.pids()) - cpu0) / IDLE, idleCoresByProcess };
}

/**
 * Waits (up to --quiet seconds, 5 minutes unless told) for the one-minute load average to fall below 1.5, so that neither what
 * ran before (a build, the other system) nor the previous phase counts against this one.
 */
async function quietMachine() {
  for (const deadline = Date.now() + Number(opt.quiet) * 1000; Date.now() < deadline; ) {
    if (Number(loadAverage().split(" ")[0]) < 1.5) {
      return;
    }
    await sleep(2000);
  }
}

async function measure(make, work) {
  await quietMachine();
  const load = { before: loadAverage() };
  const system = await make(work);
  const out = { modes: {} };
  try {
    const modes = Object.entries(system.modes);
    Object.assign(out, await firstAnswer(system, modes[0][1]));
    for (const [mode, call] of modes) {
      // the first 50 tasks one after the other, timed apart: what a user meets right after a start
      const cold = await sequential(call, 50);
      const warm = WARMUP > 0 ? await warmUp(system, call) : { warmupSeconds: 0 };
      out.modes[mode] = {
        coldP50: cold.p50,
        ...warm,
        ...(await sequentialExplained(system, call)),
        ...(await concurrent(system, call)),
      };
    }
    Object.assign(out, await idle(system));
    out.memory = memory(system.pids());
  } finally {
    await system.stop();
  }
  load.after = loadAverage();
  out.load = load;
  return out;
}

const work = workDir();
const results = {};
if (opt.only !== "restate") {
  results.taskmesh = await measure(taskmesh, work);
}
if (opt.only !== "taskmesh") {
  results.restate = await measure(restate, work);
}

const tm = results.taskmesh;
const rs = results.restate;
const fmt = (v, d = 1) => (v === undefined || v === null ? "" : v.toFixed(d));
const ratio = (a, b) => (a == null || b == null ? "" : `${(a / b).toFixed(2)}x`);
const rows = [
  ["one task in flight, p50 ms", (r, m) => r?.modes[m]?.p50, 1, "<= 1.0x", true],
  ["one task in flight, p90 ms", (r, m) => r?.modes[m]?.p90, 1, "", true],
  ["one task in flight, p99 ms", (r, m) => r?.modes[m]?.p99, 1, "", true],
  ["first 50 tasks after the first answer, p50 ms", (r, m) => r?.modes[m]?.coldP50, 1, "", true],
  ["warm-up until the CPU per task settled, s", (r, m) => r?.modes[m]?.warmupSeconds, 0, "", true],
  [
    "then one in flight until its p50 settled, tasks",
    (r, m) => {
      const rounds = r?.modes[m]?.sequentialWarmupP50ByRound;
      return rounds === undefined ? undefined : rounds.length * SEQUENTIAL_ROUND;
    },
    0,
    "",
    true,
  ],
  [`${CLIENTS} clients, tasks/s`, (r, m) => r?.modes[m]?.tasksPerSecond, 1, ">= 1.0x", true],
  ["CPU per task, ms (all processes)", (r, m) => r?.modes[m]?.cpuMsPerTask, 2, "<= 1.0x", true],
  [`CPU with nothing to do, cores (${IDLE} s)`, (r) => r?.idleCores, 3, "<= 0.05 cores"],
  ["resident memory (RSS), MiB", (r) => r?.memory.rssMiB, 0, "<= 1.5x"],
  ["proportional memory (PSS), MiB", (r) => r?.memory.pssMiB, 0, ""],
  ["processes", (r) => r?.memory.processes, 0, ""],
  ["start to gateway line, s", (r) => r?.ready, 1, "<= 15 s"],
  ["start to first answer, s", (r) => r?.firstAnswer, 1, ""],
];
console.log("");
console.log(
  "| | taskmesh | Restate, one invocation per step | Restate, three steps in one handler | taskmesh / Restate per step | target |",
);
console.log("|---|---|---|---|---|---|");
for (const [label, get, digits, target, perMode] of rows) {
  const a = get(tm, "pipeline");
  const b = get(rs, "perStep");
  const third = perMode ? fmt(get(rs, "inOne"), digits) : "";
  console.log(`| ${label} | ${fmt(a, digits)} | ${fmt(b, digits)} | ${third} | ${ratio(a, b)} | ${target} |`);
}
console.log("");
for (const [name, r] of Object.entries(results)) {
  // "after" includes the run's own 32 clients: only a busy machine before the run voids it
  const warn =
    Number(r.load.before.split(" ")[0]) > 2 ? "  (load above 2 before the run: void)" : "";
  console.log(
    `${name}: load average before ${r.load.before}${warn}; after ${r.load.after} (its own load included)`,
  );
  console.log(`${name}: processes ${r.memory.names.join(", ")}`);
  console.log(`${name}: RSS MiB by process: ${JSON.stringify(r.memory.rssMiBByProcess)}`);
  console.log(`${name}: idle cores by process: ${JSON.stringify(r.idleCoresByProcess)}`);
}
for (const [name, r] of Object.entries(results)) {
  for (const [mode, m] of Object.entries(r.modes)) {
    const split = Object.entries(m.cpuMsPerTaskByProcess).sort((a, b) => b[1] - a[1]);
    console.log(`${name} ${mode}: CPU ms per task by process: ${JSON.stringify(Object.fromEntries(split))}`);
    if (m.sequentialWarmupP50ByRound?.length) {
      console.log(`${name} ${mode}: one in flight before the measured tasks, p50 ms of each ${SEQUENTIAL_ROUND}-task round: ${m.sequentialWarmupP50ByRound.join(", ")}`);
    }
    if (m.sequentialCpuMsPerTaskByProcess) {
      console.log(`${name} ${mode}: one in flight, CPU ms per task by process: ${JSON.stringify(m.sequentialCpuMsPerTaskByProcess)}`);
    }
    for (const [series, t] of Object.entries(m.sequentialTimers ?? {}).filter(([, t]) => t.meanMs >= 0.5)) {
      console.log(`${name} ${mode}: one in flight, ${series}: mean ${t.meanMs} ms, ${t.perTask} per task`);
    }
    if (m.warmupCpuMsPerTaskByRound) {
      console.log(`${name} ${mode}: warm-up, CPU ms per task of each ${WARMUP_ROUND} s round: ${m.warmupCpuMsPerTaskByRound.join(", ")}`);
    }
  }
}
console.log(`every answer checked; logs under ${work}`);
if (opt.json) {
  fs.mkdirSync(path.dirname(path.resolve(opt.json)), { recursive: true });
  fs.writeFileSync(opt.json, JSON.stringify({ at: new Date().toISOString(), results }, null, 2));
}
