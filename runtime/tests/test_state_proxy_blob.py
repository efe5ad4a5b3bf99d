"""blob-buffered-cas through the runtime against devkit's LocalGcsServer (the JSON API
server held to the official Google client by LocalGcsServerTest), as test_state_proxy_kv.py does
for Redis: two runtimes' CAS increments on one key end at exactly the acknowledged count; the
blob store down -> ConnectionError in the handler, and the same runtime process recovers."""

from __future__ import annotations

import pytest

from conftest import envelope
from state_backends import LocalBlob, counter_runtime, race_increments, require_connectors, two_pods

require_connectors()

BUCKET = "blob-cas"
PER_RUNTIME = 15


@pytest.fixture
def blob():
    server = LocalBlob(BUCKET)
    yield server
    server.stop()


@pytest.fixture
def pods(blob):
    with two_pods("blob-buffered-cas", env=blob.connector_env()) as dirs:
        yield dirs


def test_two_runtimes_end_with_exactly_the_acknowledged_increments(pods, blob, start_runtime):
    runtimes = [counter_runtime(start_runtime, d) for d in pods]
    acknowledged, failures = race_increments(runtimes, PER_RUNTIME, 180)

    assert not failures, failures
    assert not [a for a in acknowledged if a.get("indeterminate")]
    assert len(acknowledged) == 2 * PER_RUNTIME
    assert int(blob.media("shared")) == 2 * PER_RUNTIME
    values = sorted(a["value"] for a in acknowledged)
    assert values == list(range(1, 2 * PER_RUNTIME + 1)), "two writers acknowledged the same value"


def test_blob_store_down_is_connection_error_and_the_same_runtime_recovers(pods, blob, start_runtime):
    rt = counter_runtime(start_runtime, pods[0])
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
