"""kv-buffered-cas through the runtime against a real redis-server: two runtime processes (each
with its own connector, as two pods) incrementing one key end at exactly the acknowledged count;
Redis down -> the handler sees ConnectionError, and the same runtime process recovers once Redis
is back. The value is read back with the test's own Redis client, not through a connector."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from conftest import envelope
from state_backends import Redis, counter_runtime, race_increments, require_connectors, require_redis, two_pods

require_connectors()

PER_RUNTIME = 25
PREFIX = "kvcas/"


@pytest.fixture
def redis():
    workdir = tempfile.mkdtemp(prefix="tmkv-", dir="/tmp")
    server = Redis(require_redis(workdir))
    yield server
    server.close()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def pods(redis):
    """Socket directories of two pods, each with its own kv-buffered-cas connector."""
    with two_pods("kv-buffered-cas", prefix=PREFIX, env={"KVSTORE_URL": redis.url}) as dirs:
        yield dirs


def test_two_runtimes_end_with_exactly_the_acknowledged_increments(pods, redis, start_runtime):
    runtimes = [counter_runtime(start_runtime, d) for d in pods]
    acknowledged, failures = race_increments(runtimes, PER_RUNTIME, 120)

    assert not failures, failures
    # Redis decides every conditional write (no indeterminate answers as moto's racing 500s)
    assert not [a for a in acknowledged if a.get("indeterminate")]
    assert len(acknowledged) == 2 * PER_RUNTIME
    assert int(redis.command("HGET", PREFIX + "shared", "data")) == 2 * PER_RUNTIME
    values = sorted(a["value"] for a in acknowledged)
    assert values == list(range(1, 2 * PER_RUNTIME + 1)), "two writers acknowledged the same value"
    print(f"conflicts retried: {sum(a['conflicts'] for a in acknowledged)}")


def test_redis_down_is_connection_error_and_the_same_runtime_recovers(pods, redis, start_runtime):
    rt = counter_runtime(start_runtime, pods[0])
    first = rt.invoke(envelope({"i": 0}))
    assert first.status == 200, first
    assert first.json()["frames"][0]["payload"]["value"] == 1

    redis.stop()
    down = rt.invoke(envelope({"i": 1}))
    assert down.status == 500, down
    details = down.json()["details"]
    assert details["type"] == "ConnectionError", details
    assert "503" in details["message"], details

    redis.start()  # same port, empty (no persistence): the counter starts again
    pid = rt.proc.pid
    back = rt.invoke(envelope({"i": 2}))
    assert back.status == 200, back
    assert back.json()["frames"][0]["payload"]["value"] == 1
    assert rt.proc.pid == pid and rt.proc.poll() is None
    assert redis.command("HGET", PREFIX + "shared", "data") == b"1"
