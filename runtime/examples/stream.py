"""Streaming actor: one FLY event per word of payload["text"], then the final payload."""

import time

from taskmesh_runtime import fly


def tokens(payload):
    for word in payload["text"].split():
        yield fly({"partial": True, "text": word})
        time.sleep(0.05)
    yield payload
