"""Takes its whole runtime down when asked to, as a native crash or a handler calling os._exit
would; answers normally otherwise."""

import os


def handle(payload):
    if payload.get("crash"):
        os._exit(3)
    return {"ok": True, "pid": os.getpid()}
