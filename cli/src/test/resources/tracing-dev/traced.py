"""TracingIT's handler: records the W3C trace headers the sidecar handed it."""


def note(payload, ctx):
    if isinstance(payload, dict) and payload.get("explode") == ctx.route["curr"]:
        return payload["missing"]  # KeyError: the failure whose traceback the task must carry
    out = dict(payload) if isinstance(payload, dict) else {"input": payload}
    seen = list(out.get("seen", []))
    seen.append({
        "actor": ctx.route["curr"],
        "traceparent": ctx.headers.get("traceparent"),
        "tracestate": ctx.headers.get("tracestate"),
    })
    out["seen"] = seen
    return out
