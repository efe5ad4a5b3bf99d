"""SSE streaming mode of /invoke (DESIGN.md "Runtime protocol: one addition")."""

import os
import time

from conftest import envelope, read_sse

SSE = {"Accept": "text/event-stream"}


def open_stream(rt, env, headers=SSE):
    conn = rt.connection()
    conn.request("POST", "/invoke", body=__import__("json").dumps(env),
                 headers={"Content-Type": "application/json", **headers})
    resp = conn.getresponse()
    return conn, resp


def test_events_arrive_while_handler_runs(shared_runtime, tmp_path):
    rt = shared_runtime("tm_handlers.wait_stream")
    gate = tmp_path / "gate"
    conn, resp = open_stream(rt, envelope({"gate": str(gate)}))
    try:
        assert resp.status == 200
        assert resp.getheader("Content-Type") == "text/event-stream"
        assert resp.getheader("Content-Length") is None
        assert resp.getheader("Connection") == "close"
        events = read_sse(resp)
        # The handler is blocked until the gate exists: receiving the FLY now proves streaming.
        assert next(events) == ("fly", {"partial": True, "text": "first"})
        gate.touch()
        rest = list(events)
    finally:
        conn.close()
    assert rest == [
        ("frame", {"payload": {"done": True},
                   "route": {"prev": ["a"], "curr": "b", "next": ["c"]}, "headers": {}}),
        ("end", {"frames": 1}),
    ]


def test_first_event_well_before_end_with_example(shared_runtime):
    rt = shared_runtime("stream.tokens")
    t0 = time.monotonic()
    conn, resp = open_stream(rt, envelope({"text": "one two three four five six seven eight"}))
    try:
        stamps = [(time.monotonic() - t0, ev, data) for ev, data in read_sse(resp)]
    finally:
        conn.close()
    kinds = [ev for _, ev, _ in stamps]
    assert kinds == ["fly"] * 8 + ["frame", "end"]
    assert [d["text"] for _, ev, d in stamps if ev == "fly"] == \
        "one two three four five six seven eight".split()
    # The handler sleeps 8 x 0.05 s after the first FLY: if events were buffered until the end,
    # all would arrive together. This is a lower bound set by the handler's own sleeps.
    assert stamps[-1][0] - stamps[0][0] >= 0.3


def test_raw_wire_format(shared_runtime):
    rt = shared_runtime("tm_handlers.fanout")
    conn, resp = open_stream(rt, envelope("p", next_=[]))
    try:
        raw = resp.read()  # body ends when the server closes the connection
    finally:
        conn.close()
    text = raw.decode()
    assert text.startswith('event: frame\ndata: {"payload":{"i":0,"of":"p"},')
    assert text.endswith('event: end\ndata: {"frames":3}\n\n')
    blocks = text.split("\n\n")[:-1]
    assert len(blocks) == 4
    for b in blocks:
        lines = b.split("\n")
        assert len(lines) == 2 and lines[0].startswith("event: ") and lines[1].startswith("data: ")


def test_error_event_is_terminal(shared_runtime):
    rt = shared_runtime("tm_handlers.gen_error")
    conn, resp = open_stream(rt, envelope({}))
    try:
        events = list(read_sse(resp))
    finally:
        conn.close()
    assert [e for e, _ in events] == ["fly", "frame", "error"]
    err = events[-1][1]
    assert err["status"] == 500
    assert err["error"] == "processing_error"
    assert err["details"]["type"] == "RuntimeError"
    assert err["details"]["mro"] == ["Exception"]
    assert "mid-stream failure" in err["details"]["traceback"]


def test_error_before_first_yield(shared_runtime):
    rt = shared_runtime("tm_handlers.gen_error_before_yield")
    conn, resp = open_stream(rt, envelope({}))
    try:
        events = list(read_sse(resp))
    finally:
        conn.close()
    assert [e for e, _ in events] == ["error"]
    assert events[0][1]["details"]["type"] == "KeyError"


def test_async_generator_streams(shared_runtime):
    rt = shared_runtime("tm_handlers.async_gen")
    conn, resp = open_stream(rt, envelope({}, next_=[]))
    try:
        events = list(read_sse(resp))
    finally:
        conn.close()
    assert events == [
        ("fly", {"partial": True, "text": "a"}),
        ("frame", {"payload": {"n": 1}, "route": {"prev": ["a"], "curr": "", "next": []},
                   "headers": {}}),
        ("frame", {"payload": {"n": 2}, "route": {"prev": ["a"], "curr": "", "next": []},
                   "headers": {}}),
        ("end", {"frames": 2}),
    ]


def test_no_output_stream_ends_with_zero_frames(shared_runtime):
    rt = shared_runtime("tm_handlers.fly_only")
    conn, resp = open_stream(rt, envelope({}))
    try:
        events = list(read_sse(resp))
    finally:
        conn.close()
    assert events == [("fly", {"partial": True, "text": "x"}), ("end", {"frames": 0})]


def test_plain_handler_answers_json_even_if_sse_accepted(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.invoke(envelope({"x": 1}), headers={"Accept": "text/event-stream"})
    assert r.status == 200
    assert r.headers["content-type"] == "application/json"
    assert r.json()["frames"][0]["payload"] == {"x": 1}
    r = shared_runtime("tm_handlers.boom").invoke(envelope({}), headers=SSE)
    assert r.status == 500 and r.json()["error"] == "processing_error"


def test_parse_errors_stay_json_in_sse_mode(shared_runtime):
    rt = shared_runtime("tm_handlers.fanout")
    r = rt.invoke(b"{bad", headers={"Accept": "text/event-stream, application/json"})
    assert r.status == 400
    assert r.headers["content-type"] == "application/json"
    r = rt.invoke({"id": "x"}, headers=SSE)
    assert r.status == 400 and r.json()["details"]["field"] == "route"


def test_generator_without_sse_accept_collects_json(shared_runtime):
    rt = shared_runtime("stream.tokens")
    r = rt.invoke(envelope({"text": "a b"}), headers={"Accept": "application/json"})
    assert r.status == 200
    body = r.json()
    assert body["fly"] == [{"partial": True, "text": "a"}, {"partial": True, "text": "b"}]
    assert [f["payload"] for f in body["frames"]] == [{"text": "a b"}]


def test_client_disconnect_mid_stream_keeps_runtime_healthy(shared_runtime, tmp_path):
    rt = shared_runtime("tm_handlers.wait_stream")
    gate = tmp_path / "gate"
    conn, resp = open_stream(rt, envelope({"gate": str(gate)}))
    assert next(read_sse(resp))[0] == "fly"
    conn.close()
    resp.close()
    gate.touch()
    assert rt.request("GET", "/healthz").status == 200
    gate2 = tmp_path / "gate2"
    gate2.touch()
    conn, resp = open_stream(rt, envelope({"gate": str(gate2)}))
    try:
        assert [e for e, _ in read_sse(resp)] == ["fly", "frame", "end"]
    finally:
        conn.close()
    assert os.path.exists(rt.socket_path)


def test_countdown_example_streams_for_the_seconds_asked(shared_runtime):
    rt = shared_runtime("stream.countdown")
    t0 = time.monotonic()
    conn, resp = open_stream(rt, envelope({"text": "go", "seconds": 1}, next_=[]))
    try:
        events = [(ev, data) for ev, data in read_sse(resp)]
    finally:
        conn.close()
    assert [ev for ev, _ in events] == ["fly", "fly", "frame", "end"]
    assert [d["text"] for ev, d in events if ev == "fly"] == ["1s ", "0.5s "]
    assert events[2][1]["payload"] == {"text": "go", "counted_seconds": 1}
    # two half-second sleeps: the stream lasts as long as it says
    assert time.monotonic() - t0 >= 1.0
