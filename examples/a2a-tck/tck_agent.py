"""The A2A TCK agent (flow `tck`, `a2a: {native: true}`): what the task does is picked by the
A2A messageId (payload["a2a"]["messageId"]), as the TCK 1.0 scenarios (scenarios/*.feature in the
kit) ask; the answer is shaped through result["a2a"] (artifacts, final status text, a direct
reply, the rejected state) and artifact chunks through FLY events with an "a2a" member.

A messageId that does not start with "tck-" holds a conversation instead: each message is
answered and the task waits for the next one (input-required), for the A2A 0.3 TCK and any
client that wants to try multi-turn. A follow-up message to an input-required task arrives as
payload["input"] (x-pause) and is handled by the same rules, so a task can ask again and again."""

import time

from taskmesh_runtime import fly

ACTOR = "tck"
LONG_ACTOR = "tck-long"
FILE_BYTES = "dGNr"  # base64 of "tck"
LONG_STEPS, LONG_STEP_S = 20, 0.5


def _text(parts):
    return {"kind": "text", "text": parts}


def _artifact(*parts, name="output", artifact_id=None):
    artifact = {"name": name, "parts": list(parts)}
    if artifact_id:
        artifact["artifactId"] = artifact_id
    return artifact


def _file(**file):
    return {"kind": "file", "file": dict(file, name="output.txt", mimeType="text/plain")}


def _done(status=None, artifacts=None, **extra):
    a2a = dict(extra)
    if status is not None:
        a2a["status"] = status
    if artifacts:
        a2a["artifacts"] = artifacts
    return {"a2a": a2a}


def _wait_for_input(ctx, question, state):
    """Pause the task (input-required) with `question`; the answer comes back to this actor."""
    ctx.headers["x-svc-pause"] = question
    ctx.route["next"] = [ACTOR]
    return state


# messageId prefix -> the completed result (checked longest first: tck-artifact-file-url before
# tck-artifact-file)
COMPLETED = {
    "tck-complete-task": lambda text: _done("Hello from TCK"),
    "tck-artifact-text": lambda text: _done(artifacts=[_artifact(_text("Generated text content"))]),
    "tck-artifact-file-url": lambda text: _done(
        artifacts=[_artifact(_file(uri="https://example.com/output.txt"))]),
    "tck-artifact-file": lambda text: _done(artifacts=[_artifact(_file(bytes=FILE_BYTES))]),
    "tck-artifact-data": lambda text: _done(
        artifacts=[_artifact({"kind": "data", "data": {"key": "value", "count": 42}})]),
    "tck-message-response": lambda text: _done(reply=[_text("Direct message response")]),
    "tck-reject-task": lambda text: _done("rejected", state="rejected"),
    "tck-stream-001": lambda text: _done(artifacts=[_artifact(_text("Stream hello from TCK"))]),
    "tck-stream-002": lambda text: _done("Stream complete"),
    "tck-stream-003": lambda text: _done(artifacts=[_artifact(_text("Stream task lifecycle"))]),
    "tck-stream-ordering-001": lambda text: _done(artifacts=[_artifact(_text("Ordered output"))]),
    "tck-stream-artifact-text": lambda text: _done(
        artifacts=[_artifact(_text("Streamed text content"))]),
    "tck-stream-artifact-file": lambda text: _done(artifacts=[_artifact(_file(bytes=FILE_BYTES))]),
}
PREFIXES = sorted(COMPLETED, key=len, reverse=True)


def long_running(payload):
    """The long-running scenario: ~10 s of FLY chunks, then completed (time to cancel or subscribe)."""
    for step in range(1, LONG_STEPS + 1):
        yield fly({"text": f"step {step}/{LONG_STEPS} "})
        time.sleep(LONG_STEP_S)
    yield _done(f"done: {payload.get('text', '')}")


def _message(payload):
    """The message this call answers: a follow-up (payload["input"]) or the first one."""
    follow_up = payload.get("input") if isinstance(payload, dict) else None
    message = follow_up if isinstance(follow_up, dict) else payload
    a2a = message.get("a2a") if isinstance(message.get("a2a"), dict) else {}
    return str(a2a.get("messageId", "")), str(message.get("text", ""))


def respond(payload, ctx):
    message_id, text = _message(payload)
    if message_id.startswith("tck-input-required"):
        yield _wait_for_input(ctx, "Please provide more input", {"asked": "more input"})
        return
    if message_id.startswith(("tck-long-running", "test-resubscribe-message-id")):
        ctx.route["next"] = [LONG_ACTOR]  # its own actor: this one stays free for other tasks
        yield {"text": text}
        return
    if message_id.startswith("tck-stream-artifact-chunked"):
        for chunk, last in (("chunk-1 ", False), ("chunk-2", True)):
            yield fly({"a2a": {"artifact": _artifact(_text(chunk), artifact_id="chunked"),
                               "append": last, "lastChunk": last}})
        yield _done("Chunks sent")
        return
    for prefix in PREFIXES:
        if message_id.startswith(prefix):
            yield COMPLETED[prefix](text)
            return
    if message_id.startswith("tck-"):
        yield _done(f"echo: {text}", artifacts=[_artifact(_text(text), name="echo")])
        return
    turn = int(payload.get("turn", 0)) + 1 if isinstance(payload, dict) else 1
    answer = f"You said: {text}. Tell me more (turn {turn})."
    # a streaming client sees the answer as it comes; the paused task keeps it in its payload
    yield fly({"text": answer})
    yield _wait_for_input(ctx, answer, {"turn": turn, "said": text, "answer": answer})
