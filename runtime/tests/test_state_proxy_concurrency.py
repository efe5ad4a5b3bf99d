"""Two runtime processes, each with its own objstore-buffered-cas connector (as two pods would
have), increment one key on one S3 server (moto) concurrently: the key ends at exactly the
number of acknowledged increments, and every acknowledged increment saw a value of its own."""

from __future__ import annotations

import shutil
import tempfile
import threading

import pytest

from conftest import envelope
from state_backends import Connector, Moto, require_connectors

pytest.importorskip("boto3")
require_connectors()

BUCKET = "cas-race"
PER_RUNTIME = 25


@pytest.fixture
def two_pods():
    moto = Moto()
    moto.client().create_bucket(Bucket=BUCKET)
    dirs = [tempfile.mkdtemp(prefix="tmcas-", dir="/tmp") for _ in range(2)]
    connectors = []
    try:
        for d in dirs:
            connectors.append(Connector("objstore-buffered-cas", f"{d}/counter.sock", BUCKET, moto.endpoint))
        yield moto, dirs
    finally:
        for c in connectors:
            c.stop()
        moto.stop()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)


def test_two_runtimes_end_with_exactly_the_acknowledged_increments(two_pods, start_runtime):
    moto, dirs = two_pods
    runtimes = [start_runtime("tm_cas.increment", env={
        "SVC_STATE_PROXY_MOUNTS": "counter:/state/counter:write=buffered",
        "SVC_STATE_SOCKET_DIR": d,
        "TM_COUNTER": "/state/counter/shared",
    }) for d in dirs]
    acknowledged: list[dict] = []
    failures: list = []
    lock = threading.Lock()
    start = threading.Barrier(len(runtimes))

    def drive(rt):
        start.wait()
        for i in range(PER_RUNTIME):
            resp = rt.invoke(envelope({"i": i}))
            with lock:
                if resp.status == 200:
                    acknowledged.append(resp.json()["frames"][0]["payload"])
                else:
                    failures.append(resp)

    threads = [threading.Thread(target=drive, args=(rt,)) for rt in runtimes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)

    assert not failures, failures
    final = int(moto.client().get_object(Bucket=BUCKET, Key="shared")["Body"].read())
    indeterminate = [a for a in acknowledged if a.get("indeterminate")]
    acknowledged = [a for a in acknowledged if not a.get("indeterminate")]
    assert len(acknowledged) + len(indeterminate) == 2 * PER_RUNTIME
    assert len(indeterminate) < 10, "backend errors, not conflicts, decided most writes"
    assert len(acknowledged) <= final <= len(acknowledged) + len(indeterminate)
    values = sorted(a["value"] for a in acknowledged)
    assert len(set(values)) == len(values), "two writers acknowledged the same value"
    if not indeterminate:
        assert values == list(range(1, final + 1))
    print(f"conflicts retried: {sum(a['conflicts'] for a in acknowledged)}")
