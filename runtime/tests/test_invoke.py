"""POST /invoke against a real runtime process: every row of the spec's status table."""

import json

import pytest

from conftest import envelope, outcome


def test_single_frame_route_shift(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.invoke(envelope({"x": 1}, prev=["p"], curr="a", next_=["b", "c"],
                           headers={"trace": "t1"}))
    assert r.status == 200, r
    assert r.headers["content-type"] == "application/json"
    assert int(r.headers["content-length"]) == len(r.body)
    assert r.json() == {"frames": [{
        "payload": {"x": 1},
        "route": {"prev": ["p", "a"], "curr": "b", "next": ["c"]},
        "headers": {"trace": "t1"},
    }]}


def test_list_return_is_one_frame(shared_runtime):
    rt = shared_runtime("tm_handlers.as_list")
    r = rt.invoke(envelope({"items": [1, 2, 3]}))
    assert r.status == 200
    frames = r.json()["frames"]
    assert len(frames) == 1
    assert frames[0]["payload"] == [1, 2, 3]


def test_fanout_generator_three_frames(shared_runtime):
    rt = shared_runtime("tm_handlers.fanout")
    status, body = outcome(rt.invoke(envelope("p")))
    assert status == 200
    assert [f["payload"] for f in body["frames"]] == [{"i": i, "of": "p"} for i in range(3)]
    assert all(f["route"] == {"prev": ["a"], "curr": "b", "next": ["c"]} for f in body["frames"])
    assert "fly" not in body


def test_none_is_204(shared_runtime):
    rt = shared_runtime("tm_handlers.none")
    r = rt.invoke(envelope({}))
    assert r.status == 204
    assert r.body == b""


@pytest.mark.parametrize("handler", ["tm_handlers.empty_gen", "tm_handlers.fly_only"])
def test_generator_without_output_frames_is_204(shared_runtime, handler):
    rt = shared_runtime(handler)
    # The stream holds no downstream event: the sidecar's 204 case.
    assert outcome(rt.invoke(envelope({}))) == (204, None)


@pytest.mark.parametrize("body", [b"{not json", b"", b"\xff\xfe", b'{"id": "x",'])
def test_malformed_json_is_400(shared_runtime, body):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.invoke(body)
    assert r.status == 400
    doc = r.json()
    assert doc["error"] == "msg_parsing_error"
    assert set(doc["details"]) >= {"message", "type", "mro", "traceback", "field"}


@pytest.mark.parametrize("mutate, field", [
    (lambda e: e.pop("id"), "id"),
    (lambda e: e.__setitem__("id", 5), "id"),
    (lambda e: e.pop("route"), "route"),
    (lambda e: e.__setitem__("route", []), "route"),
    (lambda e: e["route"].pop("prev"), "route.prev"),
    (lambda e: e["route"].__setitem__("prev", "a"), "route.prev"),
    (lambda e: e["route"].__setitem__("prev", [1]), "route.prev"),
    (lambda e: e["route"].__setitem__("curr", None), "route.curr"),
    (lambda e: e["route"].__setitem__("next", ["b", 2]), "route.next"),
    (lambda e: e.pop("payload"), "payload"),
    (lambda e: e.__setitem__("headers", "h"), "headers"),
])
def test_invalid_envelope_is_400_naming_field(shared_runtime, mutate, field):
    rt = shared_runtime("tm_handlers.echo")
    env = envelope({"x": 1})
    mutate(env)
    r = rt.invoke(env)
    assert r.status == 400, r
    doc = r.json()
    assert doc["error"] == "msg_parsing_error"
    assert doc["details"]["field"] == field
    # the reference runtime raises ValueError for a bad envelope; details are filled from it
    assert doc["details"]["type"] == "ValueError"
    assert doc["details"]["mro"] == ["Exception"]


NOT_JSON = [
    b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":NaN}',
    b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":Infinity}',
    b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":[-Infinity]}',
    b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":1e400}',
    b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":' + b"9" * 5000 + b"}",
    b'\xef\xbb\xbf{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":1}',
    b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":1} x',
    b"{'id':'e'}",
    b'{"id":"e","payload":1,}',
    b'{"id":"e", /* c */ "payload":1}',
    b'{"id":"e\x01","payload":1}',
]


@pytest.mark.parametrize("body", NOT_JSON)
@pytest.mark.parametrize("validation", ["true", "false"])
def test_non_json_input_is_400_not_500(shared_runtime, body, validation):
    rt = shared_runtime("tm_handlers.echo", env={"SVC_ENABLE_VALIDATION": validation})
    r = rt.invoke(body)
    assert r.status == 400, r
    doc = r.json()
    assert doc["error"] == "msg_parsing_error"
    assert doc["details"]["field"] is None
    assert doc["details"]["mro"][-1] == "Exception"
    assert "ValueError" in [doc["details"]["type"], *doc["details"]["mro"]]


def test_nan_error_names_the_token(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.invoke(b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":NaN}')
    assert "NaN is not JSON" in r.json()["details"]["message"]
    r = rt.invoke(b'{"id":"e","route":{"prev":[],"curr":"a","next":[]},"payload":-1e999}')
    assert "too large" in r.json()["details"]["message"]


def test_array_envelope_is_400(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.invoke(b"[1,2]")
    assert r.status == 400
    assert r.json()["error"] == "msg_parsing_error"


def test_validation_off_accepts_missing_route_fields(shared_runtime):
    rt = shared_runtime("tm_handlers.echo", env={"SVC_ENABLE_VALIDATION": "false"})
    r = rt.invoke({"id": "x", "route": {"curr": "a"}, "payload": {"v": 1}})
    assert r.status == 200, r
    assert r.json()["frames"][0]["route"] == {"prev": ["a"], "curr": "", "next": []}
    r = rt.invoke({"payload": 7})  # no id, no route at all
    assert r.status == 200, r
    # No headers in or out: the frame leaves them out, as the reference runtime does.
    assert r.json()["frames"][0] == {"payload": 7, "route": {"prev": [], "curr": "", "next": []}}
    # JSON parsing is still checked
    r = rt.invoke(b"{oops")
    assert r.status == 400
    assert r.json()["error"] == "msg_parsing_error"


def test_handler_exception_is_500_with_mro_and_traceback(shared_runtime):
    rt = shared_runtime("tm_handlers.boom")
    r = rt.invoke(envelope({"why": "because"}))
    assert r.status == 500
    doc = r.json()
    assert doc["error"] == "processing_error"
    d = doc["details"]
    assert d["message"] == "boom: because"
    assert d["type"] == "ValueError"
    assert d["mro"] == ["Exception"]
    assert "Traceback" in d["traceback"] and "tm_handlers.py" in d["traceback"]
    assert 'raise ValueError("boom: "' in d["traceback"]


def test_unserializable_return_is_500(shared_runtime):
    rt = shared_runtime("tm_handlers.unserializable")
    r = rt.invoke(envelope({}))
    assert r.status == 500
    assert r.json()["details"]["type"] == "TypeError"


def test_bad_route_next_from_handler_is_500(shared_runtime):
    rt = shared_runtime("tm_handlers.bad_next")
    r = rt.invoke(envelope({}))
    assert r.status == 500
    assert "next" in r.json()["details"]["message"]


def test_class_method_handler_instantiated_once(start_runtime):
    rt = start_runtime("tm_handlers.Counter.handle")
    first = rt.invoke(envelope({})).json()["frames"][0]["payload"]
    second = rt.invoke(envelope({})).json()["frames"][0]["payload"]
    assert first == {"calls": 1, "instances": 1}
    assert second == {"calls": 2, "instances": 1}


def test_async_function(shared_runtime):
    rt = shared_runtime("tm_handlers.async_echo")
    r = rt.invoke(envelope({"q": 1}))
    assert r.status == 200
    assert r.json()["frames"][0]["payload"] == {"async": True, "payload": {"q": 1}}


def test_async_generator_streams_frames_and_fly(shared_runtime):
    rt = shared_runtime("tm_handlers.async_gen")
    status, body = outcome(rt.invoke(envelope({}), headers={"Accept": "application/json"}))
    assert status == 200
    assert [f["payload"] for f in body["frames"]] == [{"n": 1}, {"n": 2}]
    assert body["fly"] == [{"partial": True, "text": "a"}]


def test_route_exhausted_curr_empty(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.invoke(envelope(1, prev=["x", "y"], curr="z", next_=[]))
    assert r.json()["frames"][0]["route"] == {"prev": ["x", "y", "z"], "curr": "", "next": []}
    r = rt.invoke(envelope(1, prev=[], curr="y", next_=["z"]))
    assert r.json()["frames"][0]["route"] == {"prev": ["y"], "curr": "z", "next": []}


def test_handler_changes_next_and_headers_but_not_prev_curr(shared_runtime):
    rt = shared_runtime("tm_handlers.route_edit")
    env = envelope({"next": ["q", "r", "s"]}, prev=["p0"], curr="a", next_=["b"],
                   headers={"x-keep": "k", "x-remove": "gone", "traceparent": "00-abc-01"},
                   id_="the-id")
    r = rt.invoke(env)
    assert r.status == 200, r
    frame = r.json()["frames"][0]
    # the handler saw the request's id, route and headers
    assert frame["payload"] == {
        "id": "the-id",
        "route": {"prev": ["p0"], "curr": "a", "next": ["b"]},
        "headers": {"x-keep": "k", "x-remove": "gone", "traceparent": "00-abc-01"},
    }
    # next replaced; prev/curr edits ignored (prev gains "a", curr = first of the new next)
    assert frame["route"] == {"prev": ["p0", "a"], "curr": "q", "next": ["r", "s"]}
    # header edits kept, except the sidecar-managed traceparent
    assert frame["headers"] == {"x-keep": "k", "x-added": "1", "traceparent": "00-abc-01"}


def test_generator_frames_snapshot_route_and_headers_at_yield(shared_runtime):
    rt = shared_runtime("tm_handlers.gen_route")
    frames = outcome(rt.invoke(envelope({}, next_=["z"])))[1]["frames"]
    assert frames[0]["route"] == {"prev": ["a"], "curr": "a", "next": []}
    assert frames[0]["headers"] == {"step": 1}
    assert frames[1]["route"] == {"prev": ["a"], "curr": "b", "next": ["c"]}
    assert frames[1]["headers"] == {"step": 2}


def test_large_unicode_payload_roundtrip(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    payload = {"text": "h\u00e9llo \u2028 \u4e16\u754c " * 20000}
    r = rt.invoke(envelope(payload))
    assert r.status == 200
    assert r.json()["frames"][0]["payload"] == payload
    assert b"\n" not in r.body


def test_body_over_limit_is_413(shared_runtime):
    rt = shared_runtime("tm_handlers.echo", env={"SVC_MAX_BODY_BYTES": "1000"})
    r = rt.invoke(envelope({"x": "y" * 2000}))
    assert r.status == 413
    assert r.json()["error"] == "msg_parsing_error"
    assert rt.invoke(envelope({"x": "small"})).status == 200


def test_extra_envelope_fields_are_ignored(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    env = envelope({"x": 1})
    env["parent_id"] = "p"
    env["status"] = {"phase": "processing"}
    r = rt.invoke(json.dumps(env))
    assert r.status == 200
    # status is echoed as the reference runtime does (non-empty); empty headers are left out
    assert r.json()["frames"][0] == {"payload": {"x": 1}, "status": {"phase": "processing"},
                                     "route": {"prev": ["a"], "curr": "b", "next": ["c"]}}
