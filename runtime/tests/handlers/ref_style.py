"""Handlers written for the reference runtime: payload only, yield verbs, no taskmesh import.

ctx_style.py has the same behaviours in our (payload, ctx) style; test_styles.py runs both.
"""

import asyncio

from tm_errors import Rejected


def echo(payload):
    return payload


def none(payload):
    return None


def fanout(payload):
    for i in range(3):
        yield {"i": i}


def stream(payload):
    for word in payload["text"].split():
        yield "FLY", {"partial": True, "text": word}
    yield payload


def reroute(payload):
    prev = yield "GET", ".route.prev"
    yield "SET", ".route.next", payload["next"]
    yield {"prev": prev}


def insert_first(payload):
    yield "SET", ".route.next[:0]", ["first"]
    yield "SET", ".route.next[-1]", "last"
    yield payload


def headers(payload):
    yield "SET", ".headers.x-added", "1"
    yield "SET", '.headers["x two"]', {"nested": True}
    yield "DEL", '.headers["x-remove"]'
    yield "SET", ".headers.traceparent", "forged"
    yield payload


def identity(payload):
    yield {
        "id": (yield "GET", ".id"),
        "parent_id": (yield "GET", ".parent_id"),
        "curr": (yield "GET", ".route.curr"),
        "first_next": (yield "GET", ".route.next[0]"),
    }


def per_frame_route(payload):
    yield "SET", ".route.next", ["a"]
    yield {"k": 1}
    yield "SET", ".route.next", ["b", "c"]
    yield {"k": 2}


def fly_only(payload):
    yield "FLY", {"partial": True, "text": "x"}


def boom(payload):
    raise Rejected("rejected: " + str(payload.get("why")))


def boom_mid_stream(payload):
    yield "FLY", {"partial": True, "text": "t"}
    yield {"n": 1}
    raise Rejected("mid-stream")


async def async_stream(payload):
    yield "FLY", {"partial": True, "text": "a"}
    await asyncio.sleep(0.01)
    nxt = yield "GET", ".route.next"
    yield "SET", ".route.next", nxt + ["added"]
    yield {"n": 1}


async def async_echo(payload):
    await asyncio.sleep(0.01)
    return {"async": True, "payload": payload}


class Model:
    def __init__(self, scale: int = 10):
        self.scale = scale
        self.calls = 0

    def process(self, payload):
        self.calls += 1
        return {"scaled": payload["x"] * self.scale}
