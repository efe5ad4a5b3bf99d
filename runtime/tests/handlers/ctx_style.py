"""The handlers of ref_style.py written in our (payload, ctx) style with fly()."""

import asyncio

from taskmesh_runtime import Context, fly
from tm_errors import Rejected


def echo(payload, ctx):
    return payload


def none(payload, ctx):
    return None


def fanout(payload, ctx):
    for i in range(3):
        yield {"i": i}


def stream(payload, ctx):
    for word in payload["text"].split():
        yield fly({"partial": True, "text": word})
    yield payload


def reroute(payload, ctx):
    prev = list(ctx.route["prev"])
    ctx.route["next"] = payload["next"]
    yield {"prev": prev}


def insert_first(payload, ctx):
    ctx.route["next"][:0] = ["first"]
    ctx.route["next"][-1] = "last"
    yield payload


def headers(payload, ctx):
    ctx.headers["x-added"] = "1"
    ctx.headers["x two"] = {"nested": True}
    del ctx.headers["x-remove"]
    ctx.headers["traceparent"] = "forged"
    yield payload


def identity(payload, ctx: Context):
    yield {
        "id": ctx.id,
        "parent_id": ctx.parent_id,
        "curr": ctx.route["curr"],
        "first_next": ctx.route["next"][0],
    }


def per_frame_route(payload, ctx):
    ctx.route["next"] = ["a"]
    yield {"k": 1}
    ctx.route["next"] = ["b", "c"]
    yield {"k": 2}


def fly_only(payload, ctx):
    yield fly({"partial": True, "text": "x"})


def boom(payload, ctx):
    raise Rejected("rejected: " + str(payload.get("why")))


def boom_mid_stream(payload, ctx):
    yield fly({"partial": True, "text": "t"})
    yield {"n": 1}
    raise Rejected("mid-stream")


async def async_stream(payload, ctx):
    yield fly({"partial": True, "text": "a"})
    await asyncio.sleep(0.01)
    ctx.route["next"] = ctx.route["next"] + ["added"]
    yield {"n": 1}


async def async_echo(payload, ctx):
    await asyncio.sleep(0.01)
    return {"async": True, "payload": payload}


class Model:
    def __init__(self, scale: int = 10):
        self.scale = scale
        self.calls = 0

    def process(self, payload, ctx):
        self.calls += 1
        return {"scaled": payload["x"] * self.scale}
