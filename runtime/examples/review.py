"""Human in the loop: `draft` prepares a text and pauses the task until someone answers;
`publish` runs on the answer (x-pause puts it in payload["input"] when the task is resumed,
e.g. by an A2A message/send with the task id)."""

APPROVALS = {"yes", "y", "ok", "approve", "approved"}


def draft(payload, ctx):
    text = str(payload.get("text", "")).strip()
    ctx.headers["x-svc-pause"] = "awaiting approval"
    return {"draft": text[:1].upper() + text[1:]}


def publish(payload):
    answer = payload.get("input")
    said = answer.get("text", "") if isinstance(answer, dict) else str(answer or "")
    return {"draft": payload.get("draft"), "published": said.strip().lower() in APPROVALS, "answer": said}
