"""The event stream a generator handler answers with: the reference runtime's wire format
(upstream / downstream / error / done), whatever the request's Accept header says."""

import os
import time

import pytest

from conftest import envelope, outcome, read_sse, sse_events

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
        assert next(events) == ("upstream", {"payload": {"partial": True, "text": "first"}})
        gate.touch()
        rest = list(events)
    finally:
        conn.close()
    assert rest == [
        ("downstream", {"payload": {"done": True},
                        "route": {"prev": ["a"], "curr": "b", "next": ["c"]}}),
        ("done", {}),
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
    assert kinds == ["upstream"] * 8 + ["downstream", "done"]
    assert [d["payload"]["text"] for _, ev, d in stamps if ev == "upstream"] == \
        "one two three four five six seven eight".split()
    # The handler sleeps 8 x 0.05 s after the first FLY: if events were buffered until the end,
    # all would arrive together. This is a lower bound set by the handler's own sleeps.
    assert stamps[-1][0] - stamps[0][0] >= 0.3


def test_raw_wire_format_byte_for_byte(shared_runtime):
    rt = shared_runtime("tm_handlers.fanout")
    conn, resp = open_stream(rt, envelope("p", next_=[]))
    try:
        raw = resp.read()  # body ends when the server closes the connection
    finally:
        conn.close()
    assert raw == b"".join(
        b'event: downstream\ndata: {"payload":{"i":%d,"of":"p"},'
        b'"route":{"prev":["a"],"curr":"","next":[]}}\n\n' % i for i in range(3)
    ) + b"event: done\ndata: {}\n\n"


def test_fly_headers_and_status_byte_for_byte(shared_runtime):
    env = envelope({}, prev=["p0"], curr="a", next_=["b"], headers={"x-h": "1"})
    env["status"] = {"phase": "processing"}
    r = shared_runtime("tm_handlers.async_gen").invoke(env)
    assert r.status == 200 and r.headers["content-type"] == "text/event-stream"
    frame = ('{"payload":{"n":%d},"route":{"prev":["p0","a"],"curr":"b","next":[]},'
             '"headers":{"x-h":"1"},"status":{"phase":"processing"}}')
    assert r.body == (
        b'event: upstream\ndata: {"payload":{"partial":true,"text":"a"}}\n\n'
        + b"event: downstream\ndata: " + (frame % 1).encode() + b"\n\n"
        + b"event: downstream\ndata: " + (frame % 2).encode() + b"\n\n"
        + b"event: done\ndata: {}\n\n")


def test_error_event_then_done(shared_runtime):
    rt = shared_runtime("tm_handlers.gen_error")
    r = rt.invoke(envelope({}))
    events = sse_events(r.body)
    assert [e for e, _ in events] == ["upstream", "downstream", "error", "done"]
    err = events[2][1]
    assert set(err) == {"error", "details"}
    assert err["error"] == "processing_error"
    assert err["details"]["type"] == "RuntimeError"
    assert err["details"]["mro"] == ["Exception"]
    assert "mid-stream failure" in err["details"]["traceback"]
    assert events[3] == ("done", {})
    # error wins over the frame sent before it
    assert outcome(r)[0] == 500


def test_error_before_first_yield(shared_runtime):
    rt = shared_runtime("tm_handlers.gen_error_before_yield")
    events = sse_events(rt.invoke(envelope({})).body)
    assert [e for e, _ in events] == ["error", "done"]
    assert events[0][1]["details"]["type"] == "KeyError"


def test_async_generator_streams(shared_runtime):
    rt = shared_runtime("tm_handlers.async_gen")
    conn, resp = open_stream(rt, envelope({}, next_=[]))
    try:
        events = list(read_sse(resp))
    finally:
        conn.close()
    assert events == [
        ("upstream", {"payload": {"partial": True, "text": "a"}}),
        ("downstream", {"payload": {"n": 1}, "route": {"prev": ["a"], "curr": "", "next": []}}),
        ("downstream", {"payload": {"n": 2}, "route": {"prev": ["a"], "curr": "", "next": []}}),
        ("done", {}),
    ]


def test_no_downstream_event_is_the_no_output_case(shared_runtime):
    rt = shared_runtime("tm_handlers.fly_only")
    conn, resp = open_stream(rt, envelope({}))
    try:
        events = list(read_sse(resp))
    finally:
        conn.close()
    assert events == [("upstream", {"payload": {"partial": True, "text": "x"}}), ("done", {})]
    assert shared_runtime("tm_handlers.empty_gen").invoke(envelope({})).body == \
        b"event: done\ndata: {}\n\n"


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


@pytest.mark.parametrize("accept", [None, "application/json", "text/event-stream"])
def test_generator_streams_whatever_accept_says(shared_runtime, accept):
    r = shared_runtime("stream.tokens").invoke(
        envelope({"text": "a b"}), headers={"Accept": accept} if accept else {})
    assert r.status == 200 and r.headers["content-type"] == "text/event-stream"
    assert [e for e, _ in sse_events(r.body)] == ["upstream", "upstream", "downstream", "done"]


def test_client_disconnect_mid_stream_keeps_runtime_healthy(shared_runtime, tmp_path):
    rt = shared_runtime("tm_handlers.wait_stream")
    gate = tmp_path / "gate"
    conn, resp = open_stream(rt, envelope({"gate": str(gate)}))
    assert next(read_sse(resp))[0] == "upstream"
    conn.close()
    resp.close()
    gate.touch()
    assert rt.request("GET", "/healthz").status == 200
    gate2 = tmp_path / "gate2"
    gate2.touch()
    conn, resp = open_stream(rt, envelope({"gate": str(gate2)}))
    try:
        assert [e for e, _ in read_sse(resp)] == ["upstream", "downstream", "done"]
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
    assert [ev for ev, _ in events] == ["upstream", "upstream", "downstream", "done"]
    assert [d["payload"]["text"] for ev, d in events if ev == "upstream"] == ["1s ", "0.5s "]
    assert events[2][1]["payload"] == {"text": "go", "counted_seconds": 1}
    # two half-second sleeps: the stream lasts as long as it says
    assert time.monotonic() - t0 >= 1.0
