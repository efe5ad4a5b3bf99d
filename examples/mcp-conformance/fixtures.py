"""The MCP conformance suite's fixture tools as flows (examples/mcp-conformance/flows.yaml): each
tool is a flow, each handler here one of its actors. A flow's result is JSON, so what JSON text
cannot stand for (base64 image or audio, an embedded resource) goes in the reserved result member
`mcp.content`, which the gateway answers as the tool's content (docs/api/protocols.md, MCP)."""

import base64
import io
import struct
import time
import wave
import zlib

from taskmesh_runtime import fly

TEXT = "This is a simple text response for testing."
ERROR = "This tool intentionally returns an error for testing"
# the suite's progress fixture waits ~50 ms between its steps; so do the three actors here
STEP_S = 0.05


def _png():
    """A 1x1 red pixel PNG, built rather than pasted so that what it is stays readable."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte, then one red pixel
    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode()


def _wav():
    """A tenth of a second of silence, 8 kHz mono 16-bit."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 800)
    return base64.b64encode(out.getvalue()).decode()


PNG, WAV = _png(), _wav()


def _content(*blocks, **structured):
    return dict(structured, mcp={"content": list(blocks)})


def _text(text):
    return {"type": "text", "text": text}


def simple_text(payload):
    return _content(_text(TEXT), text=TEXT)


def image(payload):
    return _content({"type": "image", "data": PNG, "mimeType": "image/png"})


def audio(payload):
    return _content({"type": "audio", "data": WAV, "mimeType": "audio/wav"})


def embedded_resource(payload):
    return _content({"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain",
        "text": "This is an embedded resource content."}})


def mixed_content(payload):
    return _content(
        _text("Multiple content types test:"),
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                                          "mimeType": "application/json",
                                          "text": '{"test":"data","value":123}'}})


def error(payload):
    raise RuntimeError(ERROR)


def progress_step(payload):
    """One of the progress flow's three stages: each finished stage is a progress notification."""
    time.sleep(STEP_S)
    payload["steps"] = payload.get("steps", 0) + 1
    if payload["steps"] == 3:
        return _content(_text("Progress test completed"), steps=3)
    return payload


def elicitation_ask(payload, ctx):
    """Pause with the caller's message: the gateway asks it (elicitation/create or input_required)."""
    ctx.headers["x-svc-pause"] = str(payload.get("message") or "Please provide your information")
    return {"message": payload.get("message")}


def elicitation_answer(payload):
    answer = payload.get("input")
    return _content(_text(f"User response: action: accept, content: {answer}"), response=answer)


def logging_tool(payload):
    """Emits FLY tokens: a call with a progress token hears them as log messages, one without
    hears none (the 2026-07-28 suite checks that no log reaches a call that asked for none)."""
    for step in ("started", "processing", "completed"):
        yield fly({"text": f"Tool execution {step}"})
    yield _content(_text("Logging test completed"))
