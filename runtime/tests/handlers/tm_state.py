"""Handler that keeps a hit counter in a state-proxy mount (path from TM_STATE_DIR).

It writes a marker at import time too: the hooks must be in place before the handler loads."""

import os

STATE_DIR = os.environ["TM_STATE_DIR"]

with open(os.path.join(STATE_DIR, "imported.txt"), "w") as marker:
    marker.write("hooks were installed before import")


def handle(payload):
    path = os.path.join(STATE_DIR, "hits", payload["name"])
    hits = 0
    if os.path.exists(path):
        with open(path) as f:
            hits = int(f.read())
    with open(path, "w") as f:
        f.write(str(hits + 1))
    return {**payload, "hits": hits + 1}
