"""Handlers of StateProxyDevIT: plain file operations on the actor's state-proxy mounts."""

CALLS = 0  # how many calls this runtime process has served: tells a restarted runtime apart


def _count():
    global CALLS
    CALLS += 1
    return CALLS


def write(payload):
    """Writes payload.mib MiB of payload.fill to {mount}/{key} in 1 MiB write() calls."""
    calls = _count()
    chunk = payload["fill"].encode() * (1024 * 1024)
    with open(f"{payload['mount']}/{payload['key']}", "wb") as f:
        for _ in range(payload["mib"]):
            f.write(chunk)
    return {"written_mib": payload["mib"], "calls": calls}


def note(payload):
    """Writes payload.text to {mount}/{key}, reads it back."""
    calls = _count()
    path = f"{payload['mount']}/{payload['key']}"
    with open(path, "w") as f:
        f.write(payload["text"])
    with open(path) as f:
        return {"text": f.read(), "calls": calls}
