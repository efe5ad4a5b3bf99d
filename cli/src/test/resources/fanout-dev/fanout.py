"""FanOutDevIT's handlers, in the reference style (payload only, a generator for the fan-out)."""

import time


def split(payload):
    # the first frame is the parent's own continuation; each later one becomes a child task
    yield {"items": len(payload["items"])}
    for item in payload["items"]:
        yield item


def work(payload):
    # a slow item keeps children in flight long enough to restart a sidecar under them
    time.sleep(payload.get("sleep", 0))
    if payload.get("fail"):
        raise ValueError("item %s was asked to fail" % payload.get("n"))
    return payload


def grow(payload):
    # extends its own route at run time, as a planner would: two more actors after this one
    rest = yield "GET", ".route.next"
    yield "SET", ".route.next", ["work", "finish"] + list(rest)
    yield payload
