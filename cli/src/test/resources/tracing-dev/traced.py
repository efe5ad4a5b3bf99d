"""TracingIT's handler: records the W3C trace headers the sidecar handed it."""


def note(payload, ctx):
    out = dict(payload) if isinstance(payload, dict) else {"input": payload}
    seen = list(out.get("seen", []))
    seen.append({
        "actor": ctx.route["curr"],
        "traceparent": ctx.headers.get("traceparent"),
        "tracestate": ctx.headers.get("tracestate"),
    })
    out["seen"] = seen
    return out
