"""Both handler styles through a real runtime process: the reference's (payload only, yield verbs)
and ours ((payload, ctx), fly()). The same handler set, written once per style (handlers/ref_style.py
and handlers/ctx_style.py), must give the same answers, byte for byte."""

import json

import pytest

from conftest import envelope, outcome, sse_events

STYLES = ["ref_style", "ctx_style"]
SSE = {"Accept": "text/event-stream, application/json"}
JSON_ONLY = {"Accept": "application/json"}


def request_envelope(payload):
    env = envelope(payload, prev=["p0"], curr="a", next_=["b", "c"], id_="env-7",
                   headers={"x-keep": "k", "x-remove": "gone", "traceparent": "00-abc-01"})
    env["parent_id"] = "parent-1"
    env["status"] = dict(STATUS)
    return env


SHIFTED = {"prev": ["p0", "a"], "curr": "b", "next": ["c"]}
HEADERS = {"x-keep": "k", "x-remove": "gone", "traceparent": "00-abc-01"}


STATUS = {"phase": "processing", "actor": "a"}


def frame(payload, route=SHIFTED, headers=HEADERS):
    # The request's status is non-empty, so every frame echoes it, as on the reference runtime.
    return {"payload": payload, "route": route, "headers": headers, "status": STATUS}


# handler -> (payload, expected status, expected body); a generator's event stream is read
# into its JSON equivalent by conftest.outcome (FLY objects under "fly").
CASES = {
    "echo": ({"x": 1}, 200, {"frames": [frame({"x": 1})]}),
    "none": ({}, 204, None),
    "fanout": ({}, 200, {"frames": [frame({"i": i}) for i in range(3)]}),
    "stream": ({"text": "a b"}, 200, {
        "frames": [frame({"text": "a b"})],
        "fly": [{"partial": True, "text": "a"}, {"partial": True, "text": "b"}]}),
    "reroute": ({"next": ["q", "r"]}, 200, {"frames": [frame(
        {"prev": ["p0"]}, route={"prev": ["p0", "a"], "curr": "q", "next": ["r"]})]}),
    "insert_first": ({}, 200, {"frames": [frame(
        {}, route={"prev": ["p0", "a"], "curr": "first", "next": ["b", "last"]})]}),
    "headers": ({}, 200, {"frames": [frame({}, headers={
        "x-keep": "k", "traceparent": "00-abc-01", "x-added": "1", "x two": {"nested": True}})]}),
    "identity": ({}, 200, {"frames": [frame(
        {"id": "env-7", "parent_id": "parent-1", "curr": "a", "first_next": "b"})]}),
    "per_frame_route": ({}, 200, {"frames": [
        frame({"k": 1}, route={"prev": ["p0", "a"], "curr": "a", "next": []}),
        frame({"k": 2}, route={"prev": ["p0", "a"], "curr": "b", "next": ["c"]})]}),
    "fly_only": ({}, 204, None),
    "async_stream": ({}, 200, {
        "frames": [frame({"n": 1}, route={"prev": ["p0", "a"], "curr": "b", "next": ["c", "added"]})],
        "fly": [{"partial": True, "text": "a"}]}),
    "async_echo": ({"q": 1}, 200, {"frames": [frame({"async": True, "payload": {"q": 1}})]}),
    "Model.process": ({"x": 4}, 200, {"frames": [frame({"scaled": 40})]}),
}


def without_traceback(body: bytes) -> bytes:
    """The traceback names the handler's file; everything else must match byte for byte."""
    if not body:
        return body
    doc = json.loads(body)
    details = doc.get("details")
    if details:
        assert details.pop("traceback").startswith("Traceback (most recent call last):")
    return json.dumps(doc).encode()


@pytest.mark.parametrize("name", sorted(CASES))
def test_answers_match_the_expected_ones_in_both_styles(shared_runtime, name):
    payload, status, body = CASES[name]
    raw = {}
    for style in STYLES:
        r = shared_runtime(f"{style}.{name}").invoke(request_envelope(payload), headers=JSON_ONLY)
        assert outcome(r) == (status, body), (style, r)
        raw[style] = r.body
    assert raw["ref_style"] == raw["ctx_style"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_streamed_answers_are_byte_identical_in_both_styles(shared_runtime, name):
    payload = CASES[name][0]
    answers = {}
    for style in STYLES:
        r = shared_runtime(f"{style}.{name}").invoke(request_envelope(payload), headers=SSE)
        answers[style] = (r.status, r.headers.get("content-type"), r.body)
    assert answers["ref_style"] == answers["ctx_style"]


def test_stream_of_a_verb_handler_byte_for_byte(shared_runtime):
    r = shared_runtime("ref_style.stream").invoke(
        envelope({"text": "hi yo"}, prev=[], curr="a", next_=["b"]), headers=SSE)
    assert r.status == 200 and r.headers["content-type"] == "text/event-stream"
    assert r.body == (
        b'event: upstream\ndata: {"payload":{"partial":true,"text":"hi"}}\n\n'
        b'event: upstream\ndata: {"payload":{"partial":true,"text":"yo"}}\n\n'
        b'event: downstream\ndata: {"payload":{"text":"hi yo"},'
        b'"route":{"prev":["a"],"curr":"b","next":[]}}\n\n'
        b'event: done\ndata: {}\n\n')


@pytest.mark.parametrize("style", STYLES)
def test_handler_error_details_match_in_both_styles(shared_runtime, style):
    r = shared_runtime(f"{style}.boom").invoke(request_envelope({"why": "no"}))
    assert r.status == 500
    doc = r.json()
    assert doc["error"] == "processing_error"
    details = doc["details"]
    assert details["message"] == "rejected: no"
    assert details["type"] == "tm_errors.Rejected"
    assert details["mro"] == ["ValueError", "Exception"]
    assert f"{style}.py" in details["traceback"]


def test_handler_errors_are_identical_apart_from_the_traceback(shared_runtime):
    for name in ("boom", "boom_mid_stream"):
        for headers in (JSON_ONLY, SSE):
            bodies = [shared_runtime(f"{style}.{name}").invoke(request_envelope({}), headers=headers)
                      for style in STYLES]
            assert bodies[0].status == bodies[1].status
            if name == "boom_mid_stream":
                events = [sse_events(b.body) for b in bodies]
                for evs in events:
                    assert [e for e, _ in evs] == ["upstream", "downstream", "error", "done"]
                    evs.pop()
                    assert evs[-1][1]["details"].pop("traceback")
                assert events[0] == events[1]
            else:
                assert without_traceback(bodies[0].body) == without_traceback(bodies[1].body)
