"""StreamingBench's handler: one function, so both answers come from one runtime over one socket.

A plain function that returns a generator is streamed; one that returns a value is one JSON answer.
"""


def answer(payload):
    text = "x" * payload["size"]
    frames, flies = payload["frames"], payload["fly"]
    if payload["mode"] == "stream":
        return _stream(frames, flies, text)
    # the same items in one JSON answer
    return {
        "frames": [{"i": i, "text": text} for i in range(frames)],
        "fly": [{"i": i, "text": text} for i in range(flies)],
    }


def _stream(frames, flies, text):
    per_frame = flies // frames
    for i in range(frames):
        for j in range(per_frame):
            yield "FLY", {"i": i * per_frame + j, "text": text}
        yield {"i": i, "text": text}
