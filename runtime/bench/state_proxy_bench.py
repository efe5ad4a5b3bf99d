"""State proxy benchmark (a program, not a test): plain open() on a mount against boto3 directly,
the same operations on the same S3 server (moto) in the same run.

    mvn -o -q -pl state-connectors -am test-compile     # once: builds the connectors
    python3 runtime/bench/state_proxy_bench.py [--rounds N]

Starts moto and three connector processes (objstore-buffered-lww for the buffered mount,
objstore-passthrough, objstore-buffered-cas), installs the hooks in this process, and prints per
operation the mean time, the throughput and the ratio open()/boto3 (boto3 time / open() time:
1.0 = as fast as the backend's own client). Then small CAS increments per second (read +
conditional write through open(), against boto3 get_object + put_object(IfMatch=etag)).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
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


def timed(fn, n: int) -> float:
    """Mean seconds per call over n calls (after n // 5 + 1 warm-up calls)."""
    for i in range(n // 5 + 1):
        fn(i)
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - start) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="calls per 4 KiB measurement (1 MiB: a fifth)")
    args = parser.parse_args()
    if not connectors_built():
        print("build the connectors first: mvn -o -q -pl state-connectors -am test-compile", file=sys.stderr)
        return 2

    moto = Moto()
    s3 = moto.client()
    s3.create_bucket(Bucket=BUCKET)
    sockets = tempfile.mkdtemp(prefix="tmbench-", dir="/tmp")
    connectors = [Connector(kind, f"{sockets}/{name}.sock", BUCKET, moto.endpoint, prefix=f"{name}/")
                  for name, kind in (("buf", "objstore-buffered-lww"), ("pt", "objstore-passthrough"),
                                     ("cas", "objstore-buffered-cas"))]
    proxy = StateProxy(parse_mounts(f"buf:{ROOT}/buf:write=buffered;pt:{ROOT}/pt:write=passthrough;"
                                    f"cas:{ROOT}/cas:write=buffered", sockets))
    proxy.install()
    try:
        run(s3, args.rounds)
    finally:
        proxy.uninstall()
        for c in connectors:
            c.stop()
        moto.stop()
        shutil.rmtree(sockets, ignore_errors=True)
    return 0


def run(s3, rounds: int) -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; moto S3 server, connectors as child JVMs")
    print(f"{'operation':<34}{'mean ms':>9}{'MiB/s':>9}{'ops/s':>9}{'vs boto3':>10}")
    worst = None
    for label, size in SIZES.items():
        data = os.urandom(size)
        n = rounds if size < 1024 * 1024 else max(10, rounds // 5)
        for k in range(8):
            s3.put_object(Bucket=BUCKET, Key=f"buf/r{k}", Body=data)
            s3.put_object(Bucket=BUCKET, Key=f"pt/r{k}", Body=data)
            s3.put_object(Bucket=BUCKET, Key=f"direct/r{k}", Body=data)

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

        for op, base_fn, cases in (("write", boto_write, (("buffered", writer("buf")), ("passthrough", writer("pt")))),
                                   ("read", boto_read, (("buffered", reader("buf")), ("passthrough", reader("pt"))))):
            base = timed(base_fn, n)
            line(f"{label} {op} boto3", base, size, None)
            for mode, fn in cases:
                t = timed(fn, n)
                ratio = base / t
                worst = ratio if worst is None else min(worst, ratio)
                line(f"{label} {op} open() {mode}", t, size, ratio)

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

    base = timed(boto_increment, rounds)
    line("CAS increment boto3 (get+put If-Match)", base, None, None)
    t = timed(cas_increment, rounds)
    line("CAS increment open() (read+write)", t, None, base / t)
    print(f"small CAS increments through open(): {1 / t:.0f}/s (boto3 directly: {1 / base:.0f}/s)")
    print(f"lowest open()/boto3 ratio over the 4 KiB and 1 MiB reads and writes: {worst:.2f} (target >= 0.5)")


def line(name: str, seconds: float, size: int | None, ratio: float | None) -> None:
    mibs = f"{size / seconds / 2**20:9.1f}" if size else f"{'':9}"
    vs = f"{ratio:10.2f}" if ratio is not None else f"{'':10}"
    print(f"{name:<34}{seconds * 1000:9.2f}{mibs}{1 / seconds:9.0f}{vs}")


if __name__ == "__main__":
    sys.exit(main())
