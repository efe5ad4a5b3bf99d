"""CPU the runtime process spends per POST /invoke (a program, not a test): two runtime source
trees side by side in the same run, e.g. the code of main against the work tree.

    git archive main runtime | tar -x -C /tmp/rt-old
    python3 runtime/bench/invoke_cpu_bench.py --old /tmp/rt-old/runtime --new runtime

Each tree's runtime runs as the dev stack runs it: ``SVC_HANDLER=text.upper``,
``PYTHONPATH=<tree>:<tree>/examples``, ``SVC_LOG_LEVEL=INFO``, stderr appended to a file. The
client calls it the way the sidecar does: one connection per message, the sidecar's request line
and headers (``Connection: close``), a realistic envelope, the answer read to the end. Only the
runtime process's CPU counts (utime + stime of its pid, all threads), read before and after a
block of sequential calls; the client's own CPU is not in it.

Both runtimes are warmed up first, then measured in rounds; within a round the calls go in
blocks, old and new alternating (the order flips every round), so a change of the machine's load
hits both alike. A round whose load average (1 min) is above --max-load before or after it is
void. Printed: CPU ms per call of each, the ratio new/old, per round and as medians over the
valid rounds, and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

_TICK = os.sysconf("SC_CLK_TCK")

# The envelope as the sidecar sends it for the first actor of upper -> reverse -> count.
ENVELOPE = (
    '{"id":"%s","route":{"prev":[],"curr":"upper","next":["reverse","count"]},'
    '"status":{"phase":"processing","actor":"upper","attempt":1,'
    '"created_at":"2026-11-29T10:00:00Z","updated_at":"2026-11-29T10:00:00Z"},'
    '"headers":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},'
    '"payload":{"text":"hello world"}}'
)

# What the sidecar's one-off exchange writes (unix-http UnixHttpClient.head/exchange): Host
# first, its own headers, Connection: close, Content-Length last.
REQUEST_HEAD = (
    "POST /invoke HTTP/1.1\r\n"
    "Host: localhost\r\n"
    "Content-Type: application/json\r\n"
    "Accept: text/event-stream, application/json\r\n"
    "Connection: close\r\n"
    "Content-Length: %d\r\n"
    "\r\n"
)


def process_cpu(pid: int) -> float:
    """Seconds of CPU (user + system, all threads) the process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


class RuntimeProcess:
    """A runtime started from the source tree ``src`` on a private socket directory."""

    def __init__(self, label: str, src: str):
        self.label = label
        self.src = os.path.abspath(src)
        if not os.path.isdir(os.path.join(self.src, "taskmesh_runtime")):
            raise SystemExit(f"{src}: no taskmesh_runtime package there")
        self.dir = tempfile.mkdtemp(prefix=f"tmcpu-{label}-", dir="/tmp")
        self.socket_path = os.path.join(self.dir, "svc-runtime.sock")
        self.log_path = os.path.join(self.dir, "runtime.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        env.update({
            "PYTHONPATH": f"{self.src}:{self.src}/examples",
            "SVC_HANDLER": "text.upper",
            "SVC_SOCKET_DIR": self.dir,
            "SVC_LOG_LEVEL": "INFO",
        })
        self._log = open(self.log_path, "a")
        self.proc = subprocess.Popen([sys.executable, "-m", "taskmesh_runtime"], env=env,
                                     cwd=self.src, stdout=self._log, stderr=self._log)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not os.path.exists(os.path.join(self.dir, "runtime-ready")):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{self.label} runtime did not start; see {self.log_path}")
            time.sleep(0.02)

    def cpu(self) -> float:
        return process_cpu(self.proc.pid)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def invoke(socket_path: str) -> bytes:
    """One call on a connection of its own; the whole answer (the runtime closes after it)."""
    body = (ENVELOPE % uuid.uuid4()).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(socket_path)
        s.sendall((REQUEST_HEAD % len(body)).encode() + body)
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
    answer = b"".join(chunks)
    if not answer.startswith(b"HTTP/1.1 200 "):
        raise SystemExit(f"unexpected answer: {answer[:300]!r}")
    return answer


def check_answer(rt: RuntimeProcess) -> None:
    answer = invoke(rt.socket_path)
    if b'"text":"HELLO WORLD"' not in answer or b'"curr":"reverse"' not in answer:
        raise SystemExit(f"{rt.label}: wrong answer {answer!r}")


def measure(rt: RuntimeProcess, calls: int) -> tuple[float, float]:
    """(runtime CPU ms per call, client wall ms per call) over ``calls`` sequential calls."""
    cpu_before, wall_before = rt.cpu(), time.perf_counter()
    for _ in range(calls):
        invoke(rt.socket_path)
    wall = time.perf_counter() - wall_before
    cpu = rt.cpu() - cpu_before
    return cpu * 1000.0 / calls, wall * 1000.0 / calls


def run_round(runtimes: dict, calls: int, slices: int, first: str) -> dict:
    """One round: ``calls`` calls to each runtime in ``slices`` blocks, old and new blocks
    alternating (``first`` starts), so both see the same moments of the machine's load."""
    totals = {label: [0.0, 0.0] for label in runtimes}
    order = [first, "new" if first == "old" else "old"]
    per_slice = max(1, calls // slices)
    for i in range(slices):
        for label in order if i % 2 == 0 else order[::-1]:
            cpu, wall = measure(runtimes[label], per_slice)
            totals[label][0] += cpu / slices
            totals[label][1] += wall / slices
    return {label: tuple(t) for label, t in totals.items()}


def run_rounds(runtimes: dict, rounds: int, calls: int, slices: int,
               max_load: float) -> list[dict]:
    results = []
    for r in range(rounds):
        first = "old" if r % 2 == 0 else "new"
        load_before = os.getloadavg()[0]
        measured = run_round(runtimes, calls, slices, first)
        row = {"round": r + 1, "load_before": load_before, "load_after": os.getloadavg()[0]}
        for label, (cpu, wall) in measured.items():
            row[label], row[label + "_wall"] = cpu, wall
        row["valid"] = max(load_before, row["load_after"]) <= max_load
        row["ratio"] = row["new"] / row["old"]
        results.append(row)
        print(f"round {row['round']} ({first} first): old {row['old']:.3f} ms, "
              f"new {row['new']:.3f} ms CPU/call, ratio {row['ratio']:.2f}; wall old "
              f"{row['old_wall']:.3f} ms, new {row['new_wall']:.3f} ms; load "
              f"{load_before:.2f} -> {row['load_after']:.2f}"
              f"{'' if row['valid'] else '  VOID (load above %.1f)' % max_load}", flush=True)
    return results


def summarize(results: list[dict]) -> None:
    valid = [r for r in results if r["valid"]]
    if not valid:
        print("no valid round: the machine was too busy; run again later")
        return
    old = statistics.median(r["old"] for r in valid)
    new = statistics.median(r["new"] for r in valid)
    old_wall = statistics.median(r["old_wall"] for r in valid)
    new_wall = statistics.median(r["new_wall"] for r in valid)
    loads = [r["load_before"] for r in valid] + [r["load_after"] for r in valid]
    print(f"median of {len(valid)} valid round(s): runtime CPU per call old {old:.3f} ms, "
          f"new {new:.3f} ms, ratio new/old {new / old:.2f}; client wall per call old "
          f"{old_wall:.3f} ms, new {new_wall:.3f} ms; load {min(loads):.2f}-{max(loads):.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="runtime source tree of the baseline")
    parser.add_argument("--new", required=True, help="runtime source tree to compare")
    parser.add_argument("--calls", type=int, default=3000,
                        help="measured calls per round and runtime")
    parser.add_argument("--warmup", type=int, default=500, help="unmeasured calls first, each")
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds")
    parser.add_argument("--slices", type=int, default=6,
                        help="blocks per round and runtime, old and new alternating")
    parser.add_argument("--max-load", type=float, default=2.0,
                        help="a round with a higher 1-min load average is void")
    args = parser.parse_args()

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    runtimes = {}
    try:
        for label in ("old", "new"):
            runtimes[label] = RuntimeProcess(label, getattr(args, label))
        for rt in runtimes.values():
            check_answer(rt)
            for _ in range(args.warmup):
                invoke(rt.socket_path)
        results = run_rounds(runtimes, args.rounds, args.calls, args.slices, args.max_load)
    finally:
        for rt in runtimes.values():
            rt.stop()
    summarize(results)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
