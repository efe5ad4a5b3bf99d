"""State proxy benchmark (a program, not a test): plain open() on a mount against boto3 directly,
the same operations on the same S3 server (moto) in the same run.

    mvn -o -q -pl state-connectors -am test-compile     # once: builds the connectors
    python3 runtime/bench/state_proxy_bench.py [--rounds N] [--warmup N] [--blocks N]

Starts moto and three connector processes (objstore-buffered-lww for the buffered mount,
objstore-passthrough, objstore-buffered-cas), installs the hooks in this process, and prints per
operation the mean time, the throughput and the ratio open()/boto3 (boto3 time / open() time:
1.0 = as fast as the backend's own client). Then small CAS increments per second (read +
conditional write through open(), against boto3 get_object + put_object(IfMatch=etag)).

Every operation is first run --warmup times (the connectors are JVMs: until the JIT has compiled
the request path, a call costs several times its steady-state time, which is not what a
long-running connector costs). The measured calls are then interleaved: --blocks rounds, each
running a slice of every variant (boto3 and open()) in turn, so a load change on the machine
hits baseline and open() alike. Last, a breakdown per operation: the bare connector hop (GET
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


def measure(cases: dict, n: int, warmup: int, blocks: int) -> dict:
    """Mean seconds per call of each case: ``warmup`` calls each, then ``blocks`` interleaved
    slices of n // blocks calls of every case in turn."""
    for fn in cases.values():
        for i in range(warmup):
            fn(i)
    per = max(1, n // blocks)
    totals = dict.fromkeys(cases, 0.0)
    for b in range(blocks):
        for name, fn in cases.items():
            start = time.perf_counter()
            for i in range(per):
                fn(b * per + i)
            totals[name] += time.perf_counter() - start
    return {name: total / (per * blocks) for name, total in totals.items()}


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
    parser.add_argument("--rounds", type=int, default=200, help="measured calls per 4 KiB case (1 MiB: a fifth)")
    parser.add_argument("--warmup", type=int, default=300, help="unmeasured calls per 4 KiB case first (1 MiB: a fifth)")
    parser.add_argument("--blocks", type=int, default=5, help="interleaved slices the measured calls are split into")
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
        run(s3, connectors["buf"].socket_path, args)
    finally:
        proxy.uninstall()
        for c in connectors.values():
            c.stop()
        moto.stop()
        shutil.rmtree(sockets, ignore_errors=True)
    return 0


def run(s3, buf_socket: str, args) -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"moto S3 server, connectors as child JVMs; warm-up {args.warmup}, {args.blocks} interleaved blocks")
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
            times = measure({"boto3": base_fn, "hop": hop, "raw": raw_fn, **cases}, n, warmup, args.blocks)
            base = times["boto3"]
            line(f"{label} {op} boto3", base, size, None)
            for mode in cases:
                ratio = base / times[mode]
                worst = ratio if worst is None else min(worst, ratio)
                line(f"{label} {op} open() {mode}", times[mode], size, ratio)
            breakdown.append((f"{label} {op}", times))

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

    times = measure({"boto3": boto_increment, "open": cas_increment}, args.rounds, args.warmup, args.blocks)
    base, t = times["boto3"], times["open"]
    line("CAS increment boto3 (get+put If-Match)", base, None, None)
    line("CAS increment open() (read+write)", t, None, base / t)
    print(f"small CAS increments through open(): {1 / t:.0f}/s (boto3 directly: {1 / base:.0f}/s)")
    print(f"lowest open()/boto3 ratio over the 4 KiB and 1 MiB reads and writes: {worst:.2f} (target >= 0.5)")

    print()
    print("breakdown (buffered mount, mean ms): hop = GET /healthz on a fresh socket (http.client + Jetty,")
    print("no backend); http = the hook's request sent with plain http.client; open() = through the hooks")
    print(f"{'operation':<14}{'hop':>8}{'http':>8}{'open()':>8}{'boto3':>8}"
          f"{'hooks':>8}{'conn+SDK':>10}{'SDK-boto3':>11}")
    for name, times in breakdown:
        hop_ms, raw_ms, open_ms, boto_ms = (times[k] * 1000 for k in ("hop", "raw", "buffered", "boto3"))
        print(f"{name:<14}{hop_ms:8.2f}{raw_ms:8.2f}{open_ms:8.2f}{boto_ms:8.2f}"
              f"{open_ms - raw_ms:8.2f}{raw_ms - hop_ms:10.2f}{raw_ms - hop_ms - boto_ms:11.2f}")
    print("hooks = open() - http; conn+SDK = http - hop (the connector's work incl. its S3 call);")
    print("SDK-boto3 = what the connector's S3 call costs beyond boto3's own call of the same operation")


def line(name: str, seconds: float, size: int | None, ratio: float | None) -> None:
    mibs = f"{size / seconds / 2**20:9.1f}" if size else f"{'':9}"
    vs = f"{ratio:10.2f}" if ratio is not None else f"{'':10}"
    print(f"{name:<34}{seconds * 1000:9.2f}{mibs}{1 / seconds:9.0f}{vs}")


if __name__ == "__main__":
    sys.exit(main())
