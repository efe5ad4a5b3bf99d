"""State proxy benchmark (a program, not a test): plain open() on a mount against boto3 directly,
the same operations on the same S3 server (moto) in the same run.

    mvn -o -q -pl state-connectors -am test-compile     # once: builds the connectors
    python3 runtime/bench/state_proxy_bench.py [--rounds N] [--warmup N]

Starts moto and three connector processes (objstore-buffered-lww for the buffered mount,
objstore-passthrough, objstore-buffered-cas), installs the hooks in this process, and prints per
operation the mean time, the throughput and the ratio open()/boto3 (boto3 time / open() time:
1.0 = as fast as the backend's own client). Then small CAS increments per second (read +
conditional write through open(), against boto3 get_object + put_object(IfMatch=etag)).

Each connector first serves 3 x --warmup 4 KiB writes and reads, and every operation is run
--warmup times before it is measured (the connectors are JVMs: until the JIT has compiled the
request path, a call costs several times its steady-state time, which is not what a long-running
connector costs; the connectors run with the JVM options dev uses, see state_backends). The
measured calls are then interleaved: each round calls every variant (boto3, open() buffered and
passthrough, the breakdown's requests) once in turn, so a change of the machine's load hits
baseline and open() alike. Last, a breakdown per operation: the bare connector hop (GET
/healthz on a fresh Unix-socket connection), the same request the hook sends issued with plain
http.client (no hooks), open(), and boto3.
"""

from __future__ import annotations

import argparse
import http.client
import os
import pathlib
import shutil
import socket
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from state_backends import Connector, Moto, connectors_built  # noqa: E402
from taskmesh_runtime.state_proxy import StateProxy, parse_mounts  # noqa: E402

BUCKET = "bench"
ROOT = "/state-bench"
SIZES = {"4 KiB": 4 * 1024, "1 MiB": 1024 * 1024}
MIB = 1024 * 1024


def measure(cases: dict, n: int, warmup: int) -> dict:
    """Mean seconds per call of each case: ``warmup`` calls each, then n rounds, each calling
    every case once in turn (so a change of the machine's load hits all cases alike)."""
    for fn in cases.values():
        for i in range(warmup):
            fn(i)
    totals = dict.fromkeys(cases, 0.0)
    for i in range(n):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn(i)
            totals[name] += time.perf_counter() - start
    return {name: total / n for name, total in totals.items()}


_TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """Seconds of CPU (user + system, all threads) the process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def cpu_per_call(fn, n: int, pids: dict) -> dict:
    """Per call: wall seconds, this process's CPU and each of ``pids``' CPU (a block of n calls;
    CPU cannot be told apart between interleaved cases, and unlike wall time it hardly moves with
    the machine's load)."""
    before = {name: process_cpu(pid) for name, pid in pids.items()}
    wall, own = time.perf_counter(), time.process_time()
    for i in range(n):
        fn(i)
    out = {"wall": (time.perf_counter() - wall) / n, "self": (time.process_time() - own) / n}
    out.update({name: (process_cpu(pid) - before[name]) / n for name, pid in pids.items()})
    return out


class _Raw(http.client.HTTPConnection):
    """Plain http.client on a connector's socket, for the breakdown (no hooks involved)."""

    def __init__(self, path: str):
        super().__init__("localhost", timeout=60)
        self._path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(self._path)


def raw_call(path: str, method: str, url: str, body: bytes | None = None) -> bytes:
    conn = _Raw(path)
    try:
        conn.request(method, url, body=body)
        response = conn.getresponse()
        data = response.read()
        assert response.status in (200, 204), (response.status, data[:200])
        return data
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200,
                        help="measured calls per 4 KiB case (1 MiB: a fifth)")
    parser.add_argument("--warmup", type=int, default=500,
                        help="unmeasured calls per 4 KiB case first (1 MiB: a fifth)")
    args = parser.parse_args()
    if not connectors_built():
        print("build the connectors first: mvn -o -q -pl state-connectors -am test-compile", file=sys.stderr)
        return 2

    moto = Moto()
    s3 = moto.client()
    s3.create_bucket(Bucket=BUCKET)
    sockets = tempfile.mkdtemp(prefix="tmbench-", dir="/tmp")
    connectors = {name: Connector(kind, f"{sockets}/{name}.sock", BUCKET, moto.endpoint, prefix=f"{name}/")
                  for name, kind in (("buf", "objstore-buffered-lww"), ("pt", "objstore-passthrough"),
                                     ("cas", "objstore-buffered-cas"))}
    proxy = StateProxy(parse_mounts(f"buf:{ROOT}/buf:write=buffered;pt:{ROOT}/pt:write=passthrough;"
                                    f"cas:{ROOT}/cas:write=buffered", sockets))
    proxy.install()
    try:
        warm_connectors(connectors.values(), args.warmup * 3)
        run(s3, connectors["buf"].socket_path, args,
            {"connector": connectors["buf"].proc.pid, "moto": moto.proc.pid})
    finally:
        proxy.uninstall()
        for c in connectors.values():
            c.stop()
        moto.stop()
        shutil.rmtree(sockets, ignore_errors=True)
    return 0


def warm_connectors(connectors, n: int) -> None:
    """Every connector the same JIT warm-up (4 KiB PUT + GET n times each), before any case: the
    breakdown's extra requests would otherwise leave the buffered mount's connector warmer than
    the passthrough one."""
    data = os.urandom(4096)
    for c in connectors:
        for i in range(n):
            raw_call(c.socket_path, "PUT", f"/keys/warm{i % 8}", data)
            raw_call(c.socket_path, "GET", f"/keys/warm{i % 8}")


def run(s3, buf_socket: str, args, pids: dict) -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"moto S3 server, connectors as child JVMs; warm-up {args.warmup}, calls interleaved")
    print(f"{'operation':<34}{'mean ms':>9}{'MiB/s':>9}{'ops/s':>9}{'vs boto3':>10}")
    worst = None
    breakdown = []
    for label, size in SIZES.items():
        data = os.urandom(size)
        small = size < MIB
        n = args.rounds if small else max(10, args.rounds // 5)
        warmup = args.warmup if small else args.warmup // 5
        for k in range(8):
            for where in ("buf", "pt", "direct"):
                s3.put_object(Bucket=BUCKET, Key=f"{where}/r{k}", Body=data)

        def boto_write(i):
            s3.put_object(Bucket=BUCKET, Key=f"direct/w{i % 8}", Body=data)

        def boto_read(i):
            assert len(s3.get_object(Bucket=BUCKET, Key=f"direct/r{i % 8}")["Body"].read()) == size

        def writer(mount):
            def write(i):
                with open(f"{ROOT}/{mount}/w{i % 8}", "wb") as f:
                    f.write(data)
            return write

        def reader(mount):
            def read(i):
                with open(f"{ROOT}/{mount}/r{i % 8}", "rb") as f:
                    assert len(f.read()) == size
            return read

        def hop(_):
            raw_call(buf_socket, "GET", "/healthz")

        def raw_write(i):
            raw_call(buf_socket, "PUT", f"/keys/w{i % 8}", data)

        def raw_read(i):
            assert len(raw_call(buf_socket, "GET", f"/keys/r{i % 8}")) == size

        for op, base_fn, raw_fn, cases in (
                ("write", boto_write, raw_write, {"buffered": writer("buf"), "passthrough": writer("pt")}),
                ("read", boto_read, raw_read, {"buffered": reader("buf"), "passthrough": reader("pt")})):
            times = measure({"boto3": base_fn, "hop": hop, "raw": raw_fn, **cases}, n, warmup)
            base = times["boto3"]
            line(f"{label} {op} boto3", base, size, None)
            for mode in cases:
                ratio = base / times[mode]
                worst = ratio if worst is None else min(worst, ratio)
                line(f"{label} {op} open() {mode}", times[mode], size, ratio)
            cpu = {name: cpu_per_call(fn, n, pids)
                   for name, fn in (("boto3", base_fn), ("hop", hop), ("http", raw_fn), ("open()", cases["buffered"]))}
            breakdown.append((f"{label} {op}", times, cpu))

    cas_path = f"{ROOT}/cas/counter"
    with open(cas_path, "w") as f:
        f.write("0")

    def cas_increment(_):
        with open(cas_path) as f:
            value = int(f.read())
        with open(cas_path, "w") as f:  # conditional on the entity tag the read cached
            f.write(str(value + 1))

    s3.put_object(Bucket=BUCKET, Key="direct/counter", Body=b"0")

    def boto_increment(_):
        got = s3.get_object(Bucket=BUCKET, Key="direct/counter")
        value = int(got["Body"].read())
        s3.put_object(Bucket=BUCKET, Key="direct/counter", Body=str(value + 1).encode(), IfMatch=got["ETag"])

    times = measure({"boto3": boto_increment, "open": cas_increment}, args.rounds, args.warmup)
    base, t = times["boto3"], times["open"]
    line("CAS increment boto3 (get+put If-Match)", base, None, None)
    line("CAS increment open() (read+write)", t, None, base / t)
    print(f"small CAS increments through open(): {1 / t:.0f}/s (boto3 directly: {1 / base:.0f}/s)")
    print(f"lowest open()/boto3 ratio over the 4 KiB and 1 MiB reads and writes: {worst:.2f} (target >= 0.5)")

    print()
    print("breakdown, buffered mount (ms per call): hop = GET /healthz on a fresh socket (http.client +")
    print("Jetty, no backend); http = the hook's request sent with plain http.client (no hooks);")
    print("open() = through the hooks. Wall: interleaved means from above. CPU: a block of calls per")
    print("case, CPU used by this process (hooks / http.client / boto3), the connector JVM and moto.")
    print(f"{'operation':<13}{'case':<8}{'wall':>8}{'cpu py':>8}{'cpu conn':>9}{'cpu moto':>9}")
    for name, times, cpu in breakdown:
        for case, key in (("boto3", "boto3"), ("hop", "hop"), ("http", "raw"), ("open()", "buffered")):
            c = cpu[case]
            print(f"{name:<13}{case:<8}{times[key] * 1000:8.2f}{c['self'] * 1000:8.2f}"
                  f"{c['connector'] * 1000:9.2f}{c['moto'] * 1000:9.2f}")
    print("hooks = open() - http; the connector's own work = http - hop; wall beyond the CPU sum is")
    print("waiting (for moto, for the scheduler on a loaded machine)")


def line(name: str, seconds: float, size: int | None, ratio: float | None) -> None:
    mibs = f"{size / seconds / 2**20:9.1f}" if size else f"{'':9}"
    vs = f"{ratio:10.2f}" if ratio is not None else f"{'':10}"
    print(f"{name:<34}{seconds * 1000:9.2f}{mibs}{1 / seconds:9.0f}{vs}")


if __name__ == "__main__":
    sys.exit(main())
