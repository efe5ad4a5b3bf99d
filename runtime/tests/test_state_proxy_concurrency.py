"""Two runtime processes, each with its own objstore-buffered-cas connector (as two pods would
have), increment one key on one S3 server (moto) concurrently: the key ends at exactly the
number of acknowledged increments, and every acknowledged increment saw a value of its own."""

from __future__ import annotations

import pytest

from state_backends import Moto, counter_runtime, race_increments, require_connectors, two_pods

pytest.importorskip("boto3")
require_connectors()

BUCKET = "cas-race"
PER_RUNTIME = 25


@pytest.fixture
def pods():
    moto = Moto()
    moto.client().create_bucket(Bucket=BUCKET)
    try:
        with two_pods("objstore-buffered-cas", bucket=BUCKET, endpoint=moto.endpoint) as dirs:
            yield moto, dirs
    finally:
        moto.stop()


def test_two_runtimes_end_with_exactly_the_acknowledged_increments(pods, start_runtime):
    moto, dirs = pods
    runtimes = [counter_runtime(start_runtime, d) for d in dirs]
    acknowledged, failures = race_increments(runtimes, PER_RUNTIME, 120)

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
