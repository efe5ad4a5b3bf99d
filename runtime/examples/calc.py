"""A one-actor flow that can fail on its input, to show what a failure tells its caller.

Payload: {"a": number, "b": number}, or {"text": "a/b"} (what an A2A text message gives).
Dividing by zero raises ZeroDivisionError: the task fails naming this actor, with the traceback.
"""


def _operands(payload):
    if "a" in payload and "b" in payload:
        return float(payload["a"]), float(payload["b"])
    a, b = str(payload.get("text", "")).split("/")
    return float(a), float(b)


def divide(payload):
    a, b = _operands(payload)
    return {"a": a, "b": b, "quotient": a / b, "text": f"{a:g} / {b:g} = {a / b:g}"}
