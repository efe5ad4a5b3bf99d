"""Three text transforms usable as a 3-actor pipeline: upper -> reverse -> count.

Payload: {"text": "..."}; each step records its name in payload["steps"].
"""


def _step(payload, name):
    payload.setdefault("steps", []).append(name)
    return payload


def upper(payload):
    payload["text"] = payload["text"].upper()
    return _step(payload, "upper")


def reverse(payload):
    payload["text"] = payload["text"][::-1]
    return _step(payload, "reverse")


def count(payload):
    payload["length"] = len(payload["text"])
    return _step(payload, "count")
