"""blob-buffered-cas through the runtime against state-connectors' LocalGcsServer (the JSON API
server held to the official Google client by LocalGcsServerTest), as test_state_proxy_kv.py does
for Redis: two runtimes' CAS increments on one key end at exactly the acknowledged count; the
blob store down -> ConnectionError in the handler, and the same runtime process recovers."""

from __future__ import annotations

import shutil
import tempfile
import threading

import pytest

from conftest import envelope
from state_backends import Connector, LocalBlob, require_connectors

require_connectors()

BUCKET = "blob-cas"
PER_RUNTIME = 15
MOUNT = "counter:/state/counter:write=buffered"


@pytest.fixture
def blob():
    server = LocalBlob(BUCKET)
    yield server
    server.stop()


@pytest.fixture
def pods(blob):
    dirs = [tempfile.mkdtemp(prefix="tmblobpod-", dir="/tmp") for _ in range(2)]
    connectors = []
    try:
        for d in dirs:
            connectors.append(Connector("blob-buffered-cas", f"{d}/counter.sock", env=blob.connector_env()))
        yield dirs
    finally:
        for c in connectors:
            c.stop()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)


def _counter_runtime(start_runtime, socket_dir):
    return start_runtime("tm_cas.increment", env={
        "SVC_STATE_PROXY_MOUNTS": MOUNT,
        "SVC_STATE_SOCKET_DIR": socket_dir,
        "TM_COUNTER": "/state/counter/shared",
    })


def test_two_runtimes_end_with_exactly_the_acknowledged_increments(pods, blob, start_runtime):
    runtimes = [_counter_runtime(start_runtime, d) for d in pods]
    acknowledged: list[dict] = []
    failures: list = []
    lock = threading.Lock()
    start = threading.Barrier(len(runtimes))

    def drive(rt):
        start.wait()
        for i in range(PER_RUNTIME):
            resp = rt.invoke(envelope({"i": i}))
            with lock:
                (acknowledged.append(resp.json()["frames"][0]["payload"]) if resp.status == 200
                 else failures.append(resp))

    threads = [threading.Thread(target=drive, args=(rt,)) for rt in runtimes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)

    assert not failures, failures
    assert not [a for a in acknowledged if a.get("indeterminate")]
    assert len(acknowledged) == 2 * PER_RUNTIME
    assert int(blob.media("shared")) == 2 * PER_RUNTIME
    values = sorted(a["value"] for a in acknowledged)
    assert values == list(range(1, 2 * PER_RUNTIME + 1)), "two writers acknowledged the same value"


def test_blob_store_down_is_connection_error_and_the_same_runtime_recovers(pods, blob, start_runtime):
    rt = _counter_runtime(start_runtime, pods[0])
    first = rt.invoke(envelope({"i": 0}))
    assert first.status == 200, first
    assert first.json()["frames"][0]["payload"]["value"] == 1

    blob.stop()
    down = rt.invoke(envelope({"i": 1}))
    assert down.status == 500, down
    details = down.json()["details"]
    assert details["type"] == "ConnectionError", details
    assert "503" in details["message"], details

    blob.start()  # same port, empty, the bucket made again
    pid = rt.proc.pid
    back = rt.invoke(envelope({"i": 2}))
    assert back.status == 200, back
    assert back.json()["frames"][0]["payload"]["value"] == 1
    assert rt.proc.pid == pid and rt.proc.poll() is None
    assert blob.media("shared") == b"1"
