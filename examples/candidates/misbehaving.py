"""Candidates that misbehave, for `./taskmesh replay-eval`: each must show up in the report
only, never in the live pipeline."""
import os
import threading


def raises(payload):
    raise ValueError("candidate refuses " + str(payload.get("text")))


def hangs(payload):
    threading.Event().wait()


def garbage(payload):
    return {"not", "json"}


def crashes(payload):
    os._exit(3)
