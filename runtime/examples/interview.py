"""Multi-turn conversation: asks two questions, pausing the task after each (x-pause puts each answer
in payload["input"] when the task is resumed, e.g. by an A2A message/send with the task id), then
greets with both answers. Each answer is kept in the payload because the next one replaces input."""


def _answer(payload):
    answer = payload.get("input")
    said = answer.get("text", "") if isinstance(answer, dict) else str(answer or "")
    return said.strip()


def ask_name(payload, ctx):
    ctx.headers["x-svc-pause"] = "What is your name?"
    return {"topic": str(payload.get("text", "")).strip(), "question": "What is your name?"}


def ask_colour(payload, ctx):
    ctx.headers["x-svc-pause"] = "What is your favourite colour?"
    return {"topic": payload.get("topic"), "name": _answer(payload), "question": "What is your favourite colour?"}


def greet(payload):
    name, colour = payload.get("name") or "stranger", _answer(payload) or "no colour"
    return {"topic": payload.get("topic"), "name": name, "colour": colour,
            "text": f"Hello {name}, {colour} it is."}
