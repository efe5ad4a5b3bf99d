// The two systems under test, each started as a user starts it, called as a user calls it, and
// stopped as a terminal stops it (SIGINT to the process group).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { members } from "./procs.mjs";

const HERE = import.meta.dirname;
const ROOT = path.resolve(HERE, "../..");
const NODE = process.execPath;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** A child in a session of its own (so its whole group can be signalled), output to a file. */
function start(command, args, env, log) {
  const out = fs.openSync(log, "a");
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", out, out],
    detached: true,
  });
  fs.closeSync(out);
  return child;
}

async function stopGroup(child, signal = "SIGINT", withinMs = 60_000) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const done = await Promise.race([exited.then(() => true), sleep(withinMs).then(() => false)]);
  if (!done) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

async function post(url, body, headers = {}) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, contentType: r.headers.get("content-type") ?? "", text: await r.text() };
}

/** taskmesh: `./taskmesh dev` with the three `shout` actors of the bundled examples. */
export async function taskmesh(work) {
  const config = path.join(work, "taskmesh-config");
  const data = path.join(work, "taskmesh-data");
  fs.mkdirSync(config, { recursive: true });
  const examples = path.join(ROOT, "runtime", "examples");
  fs.writeFileSync(
    path.join(config, "flows.yaml"),
    fs.readFileSync(path.join(HERE, "taskmesh", "flows.yaml"), "utf8"),
  );
  fs.writeFileSync(
    path.join(config, "actors.yaml"),
    fs
      .readFileSync(path.join(HERE, "taskmesh", "actors.yaml"), "utf8")
      .replaceAll("EXAMPLES_DIR", examples),
  );
  const port = await freePort();
  const log = path.join(work, "taskmesh-dev.log");
  const started = Date.now();
  const child = start(
    path.join(ROOT, "taskmesh"),
    ["dev", "--config", config, "--data", data, "--port", String(port)]
      .concat(["--mesh-port", "0", "--mesh-internal-port", "0"]),
    {},
    log,
  );
  const base = `http://127.0.0.1:${port}`;
  let id = 0;
  // when the gateway line appears: the log is watched from the start, so the figure does not
  // depend on when the driver first gets an answer
  let ready = null;
  const watch = setInterval(() => {
    if (fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("Ctrl-C stops everything")) {
      ready = (Date.now() - started) / 1000;
      clearInterval(watch);
    }
  }, 100);
  const postgresPid = () => {
    try {
      const pidFile = path.join(data, "postgres", "data", "postmaster.pid");
      return [Number(fs.readFileSync(pidFile, "utf8").split("\n")[0])];
    } catch {
      return [];
    }
  };
  return {
    name: "taskmesh",
    started,
    log,
    readyLine: () => ready,
    pids: () => members([child.pid], postgresPid()),
    // the dev stack's own timers (Prometheus text): where a phase's time went, hop by hop
    metrics: async () => (await fetch(`${base}/metrics`)).text(),
    modes: {
      pipeline: async (text) => {
        // MCP 2026-07-28, sessionless: one POST that answers with the flow's result
        const r = await post(
          `${base}/mcp`,
          {
            jsonrpc: "2.0",
            id: ++id,
            method: "tools/call",
            params: {
              name: "shout",
              arguments: { text },
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { name: "peer-bench", version: "1" },
                "io.modelcontextprotocol/clientCapabilities": {},
              },
            },
          },
          {
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "shout",
          },
        );
        const message = jsonRpcResult(r);
        if (message.result?.isError) {
          throw new Error(`tool error: ${JSON.stringify(message.result.content)}`);
        }
        return message.result?.structuredContent;
      },
    },
    stop: async () => {
      clearInterval(watch);
      const pids = postgresPid();
      await stopGroup(child, "SIGINT");
      pids.forEach((p) => {
        try {
          process.kill(p, "SIGKILL"); // only if dev left it: never the case when dev stops cleanly
        } catch {
          // gone, as it should be
        }
      });
    },
  };
}

/** Restate: its server and a Node endpoint of the same steps, registered through its admin API. */
export async function restate(work) {
  for (const port of [8080, 9070, 5122, 9080]) {
    if (!(await portFree(port))) {
      throw new Error(`port ${port} is taken: Restate needs 8080, 9070, 5122 and 9080 free`);
    }
  }
  const log = path.join(work, "restate.log");
  const started = Date.now();
  const server = start(
    // the server's own binary, not npm's Node wrapper around it: Restate is not charged for a
    // process a user need not run
    path.join(HERE, "node_modules", "@restatedev", "restate-server-linux-x64", "bin", "restate-server"),
    ["--no-logo"],
    { RESTATE_BASE_DIR: path.join(work, "restate-data") },
    log,
  );
  const service = start(NODE, [path.join(HERE, "restate-service.mjs"), "9080"], {}, log);
  const registered = (async () => {
    for (;;) {
      try {
        const r = await post("http://127.0.0.1:9070/deployments", { uri: "http://127.0.0.1:9080" });
        if (r.status < 300) {
          return;
        }
      } catch {
        // admin API not up yet
      }
      await sleep(100);
    }
  })();
  const call = (route) => async (text) => {
    await registered;
    const r = await post(`http://127.0.0.1:8080/${route}`, { text });
    if (r.status !== 200) {
      throw new Error(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
    }
    return JSON.parse(r.text);
  };
  return {
    name: "restate",
    started,
    log,
    readyLine: () => null,
    pids: () => members([server.pid, service.pid]),
    modes: { perStep: call("steps/upper"), inOne: call("inOne/run") },
    stop: async () => {
      await stopGroup(service, "SIGINT");
      await stopGroup(server, "SIGINT");
    },
  };
}

/** The JSON-RPC response in a body sent as JSON or as SSE (the last message with a result). */
function jsonRpcResult(r) {
  if (r.status !== 200) {
    throw new Error(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
  }
  if (!r.contentType.startsWith("text/event-stream")) {
    return JSON.parse(r.text);
  }
  const messages = r.text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)));
  const answer = messages.filter((m) => "result" in m || "error" in m).pop();
  if (!answer) {
    throw new Error("no result in the stream");
  }
  return answer;
}

export const workDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "peer-bench-"));
