"""Pure unit tests (no process): route shifting, validation, config parsing, handler loading."""

import json

import pytest

from taskmesh_runtime import Context, fly
from taskmesh_runtime.config import ConfigError, load_config, parse_chmod
from taskmesh_runtime.envelope import (
    EnvelopeError,
    error_details,
    frame_json,
    json_copy,
    parse_envelope,
    shift_route,
    validate_envelope,
)
from taskmesh_runtime.handler import HandlerLoadError, Invocation, load_handler


# route shifting ------------------------------------------------------------------------------

@pytest.mark.parametrize("prev, curr, nxt, expected", [
    ([], "a", ["b", "c"], {"prev": ["a"], "curr": "b", "next": ["c"]}),
    (["a"], "b", ["c"], {"prev": ["a", "b"], "curr": "c", "next": []}),
    (["a", "b"], "c", [], {"prev": ["a", "b", "c"], "curr": "", "next": []}),
    ([], "", [], {"prev": [], "curr": "", "next": []}),
    (["x"], "", ["y"], {"prev": ["x"], "curr": "y", "next": []}),
])
def test_shift_route(prev, curr, nxt, expected):
    assert shift_route(prev, curr, nxt) == expected


def test_json_copy_is_equal_and_shares_nothing_mutable():
    doc = json.loads('{"a": {"b": [1, {"c": "d"}]}, "e": null, "f": 1.5}')
    copied = json_copy(doc)
    assert copied == doc
    copied["a"]["b"][1]["c"] = "changed"
    copied["a"]["b"].append(2)
    assert doc == {"a": {"b": [1, {"c": "d"}]}, "e": None, "f": 1.5}


def test_shift_route_does_not_alias_inputs():
    prev, nxt = ["a"], ["c", "d"]
    out = shift_route(prev, "b", nxt)
    out["prev"].append("z")
    out["next"].append("z")
    assert prev == ["a"] and nxt == ["c", "d"]


def test_frame_json_restores_protected_headers():
    route = {"prev": [], "curr": "a", "next": ["b"]}
    text = frame_json({"p": 1}, route, ["x"], {"traceparent": "t", "tracestate": "s"},
                      {"traceparent": "evil", "k": "v"})
    frame = json.loads(text)
    assert frame["headers"] == {"traceparent": "t", "k": "v"} | {"tracestate": "s"}
    assert frame["route"] == {"prev": ["a"], "curr": "x", "next": []}
    text = frame_json(1, route, [], {}, {"tracestate": "added-by-handler"})
    assert "headers" not in json.loads(text)  # empty in and out: left out, as the reference does


def test_frame_json_headers_and_status_only_when_they_say_something():
    route = {"prev": [], "curr": "a", "next": []}
    assert frame_json(1, route, [], {}, {}) == '{"payload":1,"route":{"prev":["a"],"curr":"","next":[]}}'
    # a handler that emptied the request's headers says so explicitly: a frame without
    # headers would tell the sidecar to keep the request's
    assert json.loads(frame_json(1, route, [], {"k": "v"}, {}))["headers"] == {}
    assert json.loads(frame_json(1, route, [], {}, {}, {"phase": "x"}))["status"] == {"phase": "x"}
    assert "status" not in json.loads(frame_json(1, route, [], {}, {}, {}))


def test_frame_json_rejects_bad_next_and_nan():
    route = {"prev": [], "curr": "a", "next": []}
    with pytest.raises(TypeError):
        frame_json(1, route, "b", {}, {})
    with pytest.raises(ValueError):
        frame_json(float("nan"), route, [], {}, {})


# validation ------------------------------------------------------------------------------------

GOOD = {"id": "i", "route": {"prev": [], "curr": "a", "next": []}, "payload": None}


def test_valid_envelope_with_null_payload_and_headers():
    validate_envelope(GOOD)
    validate_envelope({**GOOD, "headers": {"a": 1}})
    env = parse_envelope(json.dumps(GOOD).encode())
    assert env["headers"] == {} and env["payload"] is None


@pytest.mark.parametrize("doc, field", [
    ([], ""),
    ({**GOOD, "id": ""}, "id"),
    ({k: v for k, v in GOOD.items() if k != "payload"}, "payload"),
    ({**GOOD, "route": {"prev": [], "curr": "a"}}, "route.next"),
    ({**GOOD, "route": {"prev": [], "next": []}}, "route.curr"),
    ({**GOOD, "headers": None}, "headers"),
])
def test_validation_errors(doc, field):
    with pytest.raises(EnvelopeError) as ei:
        validate_envelope(doc)
    assert ei.value.field == field
    assert ei.value.details()["type"] == "ValueError"


def test_parse_errors():
    with pytest.raises(EnvelopeError) as ei:
        parse_envelope(b"{x")
    details = ei.value.details()
    assert details["type"] == "json.decoder.JSONDecodeError" and details["field"] is None
    assert details["mro"] == ["ValueError", "Exception"]
    with pytest.raises(EnvelopeError) as ei:
        parse_envelope(b"\xff")
    assert ei.value.details()["type"] == "UnicodeDecodeError"
    assert ei.value.details()["mro"] == ["UnicodeError", "ValueError", "Exception"]


def test_parse_without_validation_fills_defaults():
    env = parse_envelope(b'{"route": {"next": "oops", "curr": 3}, "headers": []}', validate=False)
    assert env == {"id": None, "parent_id": "", "status": {},
                   "route": {"prev": [], "curr": "", "next": []}, "payload": None, "headers": {}}


def test_error_details_shape():
    class MyErr(KeyError):
        pass
    try:
        raise MyErr("k")
    except MyErr as exc:
        d = error_details(exc)
    # qualified like the reference runtime: module + qualname; builtins bare; the class itself,
    # BaseException and object left out of mro
    assert d["type"] == "test_units.test_error_details_shape.<locals>.MyErr"
    assert d["mro"] == ["KeyError", "LookupError", "Exception"]
    assert d["traceback"].startswith("Traceback")


# config ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, mode", [("0o666", 0o666), ("666", 0o666), ("0600", 0o600),
                                        ("0O644", 0o644), (" 755 ", 0o755)])
def test_parse_chmod(text, mode):
    assert parse_chmod(text) == mode


@pytest.mark.parametrize("text", ["", "abc", "0o8", "0x1ff", "77777"])
def test_parse_chmod_bad(text):
    with pytest.raises(ConfigError, match="SVC_SOCKET_CHMOD"):
        parse_chmod(text)


def test_config_defaults():
    cfg = load_config({"SVC_HANDLER": "m.f"})
    assert cfg.socket_path == "/var/run/svc/svc-runtime.sock"
    assert cfg.ready_path == "/var/run/svc/runtime-ready"
    assert cfg.socket_chmod == 0o666 and cfg.enable_validation and cfg.log_level == "INFO"


@pytest.mark.parametrize("value, expected", [("false", False), ("0", False), ("no", False),
                                             ("FALSE", False), ("true", True), ("1", True)])
def test_config_validation_flag(value, expected):
    assert load_config({"SVC_HANDLER": "m.f", "SVC_ENABLE_VALIDATION": value}).enable_validation \
        is expected


def test_config_log_level_case_insensitive():
    assert load_config({"SVC_HANDLER": "m.f", "SVC_LOG_LEVEL": "debug"}).log_level == "DEBUG"


# handler loading and invocation ------------------------------------------------------------------

def _invoke(path, payload, route=None, headers=None):
    inv = Invocation(load_handler(path), {
        "id": "i", "route": route or {"prev": [], "curr": "a", "next": ["b"]},
        "payload": payload, "headers": headers or {}})
    inv.start()
    return inv


def test_load_function_and_kinds():
    assert load_handler("tm_handlers.echo").kind == "function"
    assert load_handler("tm_handlers.fanout").kind == "generator"
    assert load_handler("tm_handlers.async_echo").kind == "async function"
    assert load_handler("tm_handlers.async_gen").kind == "async generator"
    assert load_handler("tm_handlers.echo").wants_ctx is False
    assert load_handler("tm_handlers.route_edit").wants_ctx is True


def test_load_class_method_binds_instance():
    h = load_handler("tm_handlers.Counter.handle")
    assert h.wants_ctx is False
    assert h.call({}, None) == {"calls": 1, "instances": h.fn.__self__.instances}


def test_load_errors():
    with pytest.raises(HandlerLoadError, match="no importable module"):
        load_handler("nope_nope.f")
    with pytest.raises(HandlerLoadError, match="tm_dependency_that_does_not_exist"):
        load_handler("tm_broken.handle")


def test_invocation_single_and_generator():
    inv = _invoke("tm_handlers.echo", {"a": 1})
    assert not inv.streaming and inv.single == {"a": 1}
    inv = _invoke("tm_handlers.fanout", 0)
    assert inv.streaming
    assert [k for k, _ in inv.events()] == ["downstream"] * 3


def test_invocation_async_generator_events():
    inv = _invoke("tm_handlers.async_gen", None)
    events = list(inv.events())
    assert events[0] == ("upstream", '{"payload":{"partial":true,"text":"a"}}')
    assert [json.loads(d)["payload"] for k, d in events[1:]] == [{"n": 1}, {"n": 2}]


def test_fly_requires_object_and_context_repr():
    assert fly({"a": 1}).obj == {"a": 1}
    with pytest.raises(TypeError):
        fly("text")
    assert "route" in repr(Context("i", {"prev": [], "curr": "", "next": []}, {}))


def test_examples_text_pipeline_in_process():
    import text
    p = {"text": "abc"}
    for fn in (text.upper, text.reverse, text.count):
        p = fn(p)
    assert p == {"text": "CBA", "steps": ["upper", "reverse", "count"], "length": 3}
