"""Handlers for the sidecar's integration tests: each exercises one response pattern."""

import os
import time

from taskmesh_runtime import fly


def echo(payload):
    return payload


def boom(payload):
    raise ValueError("boom")


def flaky(payload):
    """Raises ConnectionError until it has been called payload["fail_times"] times (counter in a file)."""
    counter = payload["counter_file"]
    n = int(open(counter).read()) if os.path.exists(counter) else 0
    with open(counter, "w") as f:
        f.write(str(n + 1))
    if n < payload.get("fail_times", 1):
        raise ConnectionError(f"transient failure {n + 1}")
    payload["calls"] = n + 1
    return payload


def slow(payload):
    time.sleep(payload.get("sleep", 5))
    return payload


def fan3(payload):
    for i in range(3):
        yield {"part": i, "of": payload}


def nothing(payload):
    return None


def pause(payload, ctx):
    ctx.headers["x-svc-pause"] = "true"
    return payload


def tokens(payload):
    for word in payload["text"].split():
        yield fly({"partial": True, "text": word})
    yield payload


def to_sink(payload, ctx):
    ctx.route["next"] = ["x-sink"]
    return payload


def crash_once(payload):
    """Kills the runtime process the first time (counter file), succeeds afterwards."""
    marker = payload["counter_file"]
    if not os.path.exists(marker):
        open(marker, "w").write("crashed")
        os._exit(3)
    payload["survived"] = True
    return payload


def trace(payload, ctx):
    ctx.headers["traceparent"] = "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01"
    ctx.headers["added"] = "yes"
    return payload


def as_list(payload):
    """A list returned (not yielded) is one payload, not a fan-out."""
    return [payload, payload]
