"""Handlers used by the runtime tests (imported by a real runtime process)."""

import asyncio
import os
import time

from taskmesh_runtime import Context, fly


def echo(payload):
    return payload


def as_list(payload):
    return payload["items"]


def fanout(payload):
    for i in range(3):
        yield {"i": i, "of": payload}


def none(payload):
    return None


def boom(payload):
    raise ValueError("boom: " + str(payload.get("why")))


def unserializable(payload):
    return {"x": object()}


def fly_only(payload):
    yield fly({"partial": True, "text": "x"})


def empty_gen(payload):
    return
    yield  # pragma: no cover


class Counter:
    instances = 0

    def __init__(self):
        Counter.instances += 1
        self.calls = 0

    def handle(self, payload):
        self.calls += 1
        return {"calls": self.calls, "instances": Counter.instances}


async def async_echo(payload):
    await asyncio.sleep(0.01)
    return {"async": True, "payload": payload}


async def async_gen(payload):
    yield fly({"partial": True, "text": "a"})
    await asyncio.sleep(0.01)
    yield {"n": 1}
    yield {"n": 2}


def route_edit(payload, ctx):
    assert isinstance(ctx, Context)
    seen = {"id": ctx.id, "route": dict(ctx.route), "headers": dict(ctx.headers)}
    ctx.route["next"] = payload["next"]
    ctx.route["prev"] = ["hacked"]
    ctx.route["curr"] = "hacked"
    ctx.headers["x-added"] = "1"
    ctx.headers.pop("x-remove", None)
    ctx.headers["traceparent"] = "forged"
    return seen


def gen_route(payload, ctx):
    ctx.route["next"] = ["a"]
    ctx.headers["step"] = 1
    yield {"k": 1}
    ctx.route["next"] = ["b", "c"]
    ctx.headers["step"] = 2
    yield {"k": 2}


def wait_stream(payload):
    """Yield a FLY, then block until the test creates the gate file (proves incremental SSE)."""
    yield fly({"partial": True, "text": "first"})
    deadline = time.monotonic() + 5
    while not os.path.exists(payload["gate"]):
        if time.monotonic() > deadline:
            raise TimeoutError("gate file never appeared: the first event was not delivered early")
        time.sleep(0.01)
    yield {"done": True}


def gen_error(payload):
    yield fly({"partial": True, "text": "t"})
    yield {"n": 1}
    raise RuntimeError("mid-stream failure")


def gen_error_before_yield(payload):
    raise KeyError("early")
    yield  # pragma: no cover


def bad_next(payload, ctx):
    ctx.route["next"] = "not-a-list"
    return payload


def wait_gate(payload):
    """Return the payload once the test creates the gate file (at most 10 s)."""
    deadline = time.monotonic() + 10
    while not os.path.exists(payload["gate"]) and time.monotonic() < deadline:
        time.sleep(0.01)
    return payload


def thread_name(payload):
    """Which of the runtime's threads served the call."""
    import threading

    return {"thread": threading.current_thread().name}
