"""Streaming actors: `tokens` sends one FLY event per word of payload["text"], then the final
payload; `countdown` streams for several seconds (payload["seconds"], default 4, at most 30), one
FLY event every half second, so a client can watch, resubscribe to or cancel it while it runs."""

import time

from taskmesh_runtime import fly


def tokens(payload):
    for word in payload["text"].split():
        yield fly({"partial": True, "text": word})
        time.sleep(0.05)
    yield payload


def countdown(payload):
    seconds = payload.get("seconds", 4) if isinstance(payload, dict) else 4
    seconds = min(max(int(seconds) if isinstance(seconds, (int, float)) else 4, 1), 30)
    ticks = seconds * 2
    for left in range(ticks, 0, -1):
        yield fly({"partial": True, "text": f"{left / 2:g}s "})
        time.sleep(0.5)
    text = payload.get("text", "") if isinstance(payload, dict) else ""
    yield {"text": text, "counted_seconds": seconds}
