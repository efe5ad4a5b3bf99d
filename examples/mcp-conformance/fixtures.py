"""The MCP conformance suite's fixture tools as flows (examples/mcp-conformance/flows.yaml): each
tool is a flow, each handler here one of its actors. A flow's result is JSON, so what JSON text
cannot stand for (base64 image or audio, an embedded resource) goes in the reserved result member
`mcp.content`, which the gateway answers as the tool's content (docs/api/protocols.md, MCP)."""

import base64
import io
import os
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


# Named input requests (x-svc-input-requests): the handler says what the client must answer and
# under which keys; the answers come back as payload["input"] = {key: the client's answer, ...}.
def _elicit(message, field, kind="string"):
    return {"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}},
                            "required": [field]}}}


def _sample(text, max_tokens):
    return {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens}}


ROOTS = {"method": "roots/list", "params": {}}

# what each asking actor asks: its question (what a person reads) and its named requests
ASKS = {
    "irr-elicit": ("What is your name?", {"user_name": _elicit("What is your name?", "name")}),
    "irr-sample": ("What is the capital of France?",
                   {"capital_question": _sample("What is the capital of France?", 100)}),
    "irr-roots": ("Which roots may the tool read?", {"client_roots": ROOTS}),
    "irr-confirm": ("Please confirm", {"confirm": _elicit("Please confirm", "ok", "boolean")}),
    "irr-multi": ("Name, greeting and roots, please", {
        "user_name": _elicit("What is your name?", "name"),
        "greeting": _sample("Generate a greeting", 50),
        "client_roots": ROOTS}),
    "irr-both": ("Your name, and the model's greeting", {
        "ask_name": _elicit("What is your name?", "name"),
        "ask_llm": _sample("Generate a greeting", 50)}),
    "irr-step1": ("Step 1: What is your name?",
                  {"step1": _elicit("Step 1: What is your name?", "name")}),
    "irr-step2": ("Step 2: What is your favorite color?",
                  {"step2": _elicit("Step 2: What is your favorite color?", "color")}),
    "confirm-delete": ("Delete the file? Confirm.",
                       {"confirm": _elicit("Delete the file? Confirm.", "confirm", "boolean")}),
    "multi-input": ("Two answers, please", {
        "first": _elicit("First answer?", "value"),
        "second": _elicit("Second answer?", "value")}),
}


def _sep1034():
    return {"method": "elicitation/create", "params": {
        "message": "Please review your details",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                       "default": "active"},
            "verified": {"type": "boolean", "default": True}}}}}


def _sep1330():
    titled = [{"const": f"value{i}", "title": t}
              for i, t in ((1, "First Option"), (2, "Second Option"), (3, "Third Option"))]
    chosen = [{"const": f"value{i}", "title": t}
              for i, t in ((1, "First Choice"), (2, "Second Choice"), (3, "Third Choice"))]
    return {"method": "elicitation/create", "params": {
        "message": "Please choose",
        "requestedSchema": {"type": "object", "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array",
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": chosen}}}}}}


ASKS.update({
    "sep1034": ("Please review your details", {"details": _sep1034()}),
    "sep1330": ("Please choose", {"choices": _sep1330()}),
})


def sampling_ask(payload, ctx):
    """Asks the client's model the caller's prompt (sampling/createMessage)."""
    prompt = str(payload.get("prompt") or "")
    ctx.headers["x-svc-pause"] = prompt or "A prompt for the client's model"
    ctx.headers["x-svc-input-requests"] = {"llm": _sample(prompt, 100)}
    return {}


def sampling_answer(payload):
    reply = (payload.get("input") or {}).get("llm") or {}
    text = (reply.get("content") or {}).get("text", "")
    return _content(_text(f"LLM response: {text}"), response=reply)


def elicitation_completed(payload):
    """The 2025-11-25 elicitation fixtures' answer: the action and content the client sent."""
    (answer,) = (payload.get("input") or {"?": {}}).values()
    return _content(_text(f"Elicitation completed: action={answer.get('action', 'accept')}, "
                          f"content={answer.get('content')}"), response=answer)


def ask(payload, ctx):
    """Pauses the task with this actor's question and named requests (ASKS, by actor name)."""
    question, requests = ASKS[ctx.route["curr"]]
    ctx.headers["x-svc-pause"] = question
    ctx.headers["x-svc-input-requests"] = requests
    answers = dict(payload.get("answers") or {})
    answers.update(payload.get("input") or {})  # a multi-round flow keeps the earlier answers
    return {"answers": answers}


def _answers(payload):
    answers = dict(payload.get("answers") or {})
    answers.update(payload.get("input") or {})
    return answers


def answered(payload):
    """The end of an asking flow: what each answer said, as text."""
    answers = _answers(payload)
    parts = []
    for key, answer in sorted(answers.items()):
        if not isinstance(answer, dict):
            parts.append(f"{key}: {answer}")
        elif "roots" in answer:
            parts.append(f"{key}: roots " + ", ".join(r.get("uri", "?") for r in answer["roots"]))
        elif isinstance(answer.get("content"), dict) and answer.get("role"):
            parts.append(f"{key}: {answer['content'].get('text', '')}")
        else:
            parts.append(f"{key}: {answer.get('action', 'accept')} {answer.get('content')}")
    name = (answers.get("user_name") or answers.get("step1") or {}).get("content", {})
    hello = f"Hello, {name.get('name')}! " if isinstance(name, dict) and name.get("name") else ""
    # the gateway checked the echoed requestState before the task resumed, or it would not be here
    return _content(_text(hello + "state-ok; " + "; ".join(parts)), answers=answers)


def greet(payload):
    return _content(_text(f"Hello, {payload.get('name', 'World')}!"))


def slow_compute(payload):
    time.sleep(min(float(payload.get("seconds", 0) or 0), 120))
    return _content(_text(f"computed {payload.get('label', '')}".strip()))


def failing_job(payload):
    """A tool execution error after ~1 s: the handler ran and raised (MCP: isError)."""
    time.sleep(1)
    raise RuntimeError("failing_job failed, as it always does")


def protocol_error_job(payload):
    """Takes its runtime down: the handler never answers (MCP: a protocol-level failure)."""
    os._exit(70)
