// What a system costs the machine, read from /proc: the processes that make it up, their CPU time
// and their memory. A system is every process in the sessions of the processes the driver started
// (each is started in a session of its own), their descendants, and any extra pid named (a server
// that leaves its session, as Postgres started by pg_ctl may).
import fs from "node:fs";
import { execFileSync } from "node:child_process";

export const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

function stat(pid) {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name is in parentheses and may hold spaces: fields start after the last ')'
    const f = raw.slice(raw.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), session: Number(f[3]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null; // gone meanwhile
  }
}

function allStats() {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((d) => stat(Number(d)))
    .filter(Boolean);
}

/** The pids of a system: sessions of {@code roots}, their descendants, and {@code extra}. */
export function members(roots, extra = []) {
  const stats = allStats();
  const sessions = new Set(roots);
  const out = new Set(stats.filter((s) => sessions.has(s.session)).map((s) => s.pid));
  extra.filter((p) => stats.some((s) => s.pid === p)).forEach((p) => out.add(p));
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) {
      if (!out.has(s.pid) && out.has(s.ppid)) {
        out.add(s.pid);
        grew = true;
      }
    }
  }
  return [...out];
}

/**
 * CPU time (user + system) so far of each of these processes, in seconds, by a name that says what
 * the process is: its {@code comm}, or for a JVM its main class (so the dev JVM and the broker JVM
 * are told apart), or for Python its runtime's actor.
 */
export function cpuByProcess(pids) {
  const out = {};
  for (const s of pids.map(stat).filter(Boolean)) {
    const key = `${s.pid} ${describe(s.pid)}`;
    out[key] = s.ticks / CLK_TCK;
  }
  return out;
}

function describe(pid) {
  try {
    const comm = fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    if (comm === "java") {
      const main = argv.find((a) => /^(io\.taskmesh|kafka)\./.test(a));
      return `java ${main ?? "?"}`;
    }
    if (comm.startsWith("python")) {
      return `python ${argv.slice(1).join(" ").slice(0, 80)}`;
    }
    return comm;
  } catch {
    return "?";
  }
}

/** CPU time (user + system) of these processes so far, in seconds. */
export function cpuSeconds(pids) {
  return pids.map(stat).filter(Boolean).reduce((sum, s) => sum + s.ticks, 0) / CLK_TCK;
}

/**
 * Resident and proportional set size of these processes, in MiB, the processes' names, and the RSS
 * of each (by the same names as the CPU split).
 */
export function memory(pids) {
  let rss = 0;
  let pss = 0;
  const names = [];
  const rssMiBByProcess = {};
  for (const pid of pids) {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const own = Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      rss += own;
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      names.push(fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim());
      rssMiBByProcess[`${pid} ${describe(pid)}`] = Number((own / 1024).toFixed(1));
    } catch {
      // gone meanwhile, or a kernel thread without maps
    }
  }
  return { rssMiB: rss / 1024, pssMiB: pss / 1024, processes: names.length, names, rssMiBByProcess };
}

export function loadAverage() {
  return fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
