"""Yield verbs at their edges (handlers/ref_verbs.py), path parsing, and handler style detection."""

import functools

import pytest

from conftest import envelope, outcome
from taskmesh_runtime import Context
from taskmesh_runtime import verbs
from taskmesh_runtime.handler import HandlerLoadError, wants_context

REQUEST = envelope({"p": 1}, prev=["p0"], curr="a", next_=["b", "c"],
                   headers={"traceparent": "00-abc-01", "k": "v"})


def failure(shared_runtime, name, env=REQUEST):
    r = shared_runtime(f"ref_verbs.{name}").invoke(env)
    status, doc = outcome(r)
    assert status == 500, r
    assert doc["error"] == "processing_error"
    return doc["details"]


def first_frame(shared_runtime, name, env=REQUEST):
    r = shared_runtime(f"ref_verbs.{name}").invoke(env)
    status, body = outcome(r)
    assert status == 200, r
    return body["frames"][0]


@pytest.mark.parametrize("name, verb_line", [
    ("set_prev", 'yield "SET", ".route.prev", ["x"]'),
    ("set_curr", 'yield "SET", ".route.curr", "x"'),
    ("set_id", 'yield "SET", ".id", "other"'),
    ("set_whole_route", 'yield "SET", ".route", {'),
    ("del_prev_item", 'yield "DEL", ".route.prev[0]"'),
])
def test_read_only_paths_are_permission_errors_at_the_handlers_yield(shared_runtime, name,
                                                                     verb_line):
    details = failure(shared_runtime, name)
    assert details["type"] == "PermissionError"
    assert details["mro"] == ["OSError", "Exception"]
    assert "only .route.next, .headers and .status can be changed" in details["message"]
    # raised inside the generator: the traceback shows the handler's own line
    assert verb_line in details["traceback"]


@pytest.mark.parametrize("name, type_, needle", [
    ("path_without_dot", "ValueError", "must start with '.'"),
    ("path_with_garbage", "ValueError", "cannot read it from position 6"),
    ("path_not_string", "TypeError", "a path must be a string"),
    ("get_missing", "KeyError", "nope"),
    ("get_slice", "ValueError", "slices are only allowed in SET"),
    ("unknown_verb", "RuntimeError", "unknown yield verb 'PUT'"),
    ("lowercase_verb", "RuntimeError", "unknown yield verb 'set'"),
    ("set_without_value", "RuntimeError", "yield 'SET' takes 2 argument(s)"),
    ("pair_tuple", "RuntimeError", "unknown yield verb 'a'"),
    ("fly_not_object", "TypeError", "JSON object"),
    ("set_bad_next", "TypeError", "route next must be a list of strings"),
])
def test_misused_verbs_fail_the_call_instead_of_becoming_frames(shared_runtime, name, type_,
                                                                needle):
    details = failure(shared_runtime, name)
    assert details["type"] == type_
    assert needle in details["message"]


def test_one_item_tuple_is_an_output_value_as_on_the_reference(shared_runtime):
    assert first_frame(shared_runtime, "one_tuple")["payload"] == ["only"]


def test_handler_may_catch_a_refused_verb(shared_runtime):
    assert first_frame(shared_runtime, "catches")["payload"] == {"caught": "PermissionError"}


def test_status_is_readable_writable_and_echoed_as_changed(shared_runtime):
    env = dict(REQUEST, status={"phase": "processing", "actor": "a"})
    frame = first_frame(shared_runtime, "status_rw", env)
    assert frame["payload"] == {"phase": "processing", "changed": "changed",
                                "after": {"actor": "a"}}
    # as on the reference runtime, a non-empty status goes out with the frame, as changed
    assert frame["status"] == {"actor": "a"}


def test_set_whole_headers_keeps_sidecar_managed_ones(shared_runtime):
    frame = first_frame(shared_runtime, "set_whole_headers")
    assert frame["headers"] == {"only": "this", "traceparent": "00-abc-01"}


def test_del_list_item_and_get_returns_a_copy(shared_runtime):
    assert first_frame(shared_runtime, "del_next_item")["route"] == \
        {"prev": ["p0", "a"], "curr": "c", "next": []}
    assert first_frame(shared_runtime, "get_is_a_copy")["route"] == \
        {"prev": ["p0", "a"], "curr": "b", "next": ["c"]}


def test_ctx_style_handler_may_use_verbs_on_the_same_state(shared_runtime):
    frame = first_frame(shared_runtime, "mixed")
    assert frame["payload"] == {"seen": ["v"],
                                "headers": {"traceparent": "00-abc-01", "k": "v", "h": "1"}}
    assert frame["route"] == {"prev": ["p0", "a"], "curr": "v", "next": []}
    assert frame["headers"] == {"traceparent": "00-abc-01", "k": "v", "h": "1"}


def test_optional_second_parameter_is_not_given_the_context(shared_runtime):
    assert first_frame(shared_runtime, "optional_config")["payload"] == {"config": None}
    assert first_frame(shared_runtime, "star_args")["payload"] == {"args": 1}


# path parsing (pure) ---------------------------------------------------------------------------

@pytest.mark.parametrize("path, segments", [
    (".route.next", [("key", "route"), ("key", "next")]),
    (".headers.x-trace_id", [("key", "headers"), ("key", "x-trace_id")]),
    ('.headers["a b.c"]', [("key", "headers"), ("key", "a b.c")]),
    (".route.next[-1]", [("key", "route"), ("key", "next"), ("idx", -1)]),
    (".route.next[1:]", [("key", "route"), ("key", "next"), ("slice", slice(1, None))]),
    (".route.next[:-2]", [("key", "route"), ("key", "next"), ("slice", slice(None, -2))]),
])
def test_parse_path(path, segments):
    assert verbs.parse_path(path) == segments


@pytest.mark.parametrize("path", ["", ".", "route", ".route.", ".route next", ".a[x]", '.a[""]',
                                  ".1abc", ".a[1"])
def test_parse_path_rejects(path):
    with pytest.raises(ValueError):
        verbs.parse_path(path)


def test_set_creates_missing_dicts_and_copies_values():
    state = {"route": {"next": []}, "headers": {}, "status": {}}
    value = {"deep": [1]}
    verbs.set_(state, ".status.extra.more", value)
    value["deep"].append(2)
    assert state["status"] == {"extra": {"more": {"deep": [1]}}}
    verbs.set_(state, ".route.next[0:0]", ["x", "y"])
    assert state["route"]["next"] == ["x", "y"]


# style detection (pure) ------------------------------------------------------------------------

def _payload(payload): ...
def _two(payload, ctx): ...
def _two_other_name(payload, extra): ...
def _optional(payload, config=None): ...
def _optional_ctx(payload, ctx=None): ...
def _annotated(payload, c: Context = None): ...
def _annotated_text(payload, c: "Context" = None): ...
def _star(*args): ...
def _payload_star(payload, *args): ...
def _kw_optional(payload, *, flag=False): ...


def _wrapped(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner


def _unwrapped(fn):
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner


class _Callable:
    def __call__(self, payload, ctx): ...


class _Method:
    def process(self, payload): ...


@pytest.mark.parametrize("fn, expected", [
    (_payload, False), (_two, True), (_two_other_name, True), (_optional, False),
    (_optional_ctx, True), (_annotated, True), (_annotated_text, True), (_star, False),
    (_payload_star, False), (_kw_optional, False), (_wrapped(_two), True),
    (_wrapped(_payload), False), (_unwrapped(_two), False), (_Callable(), True),
    (_Method().process, False), (len, False),
])
def test_wants_context(fn, expected):
    assert wants_context(fn) is expected


def _none(): ...
def _three(a, b, c): ...
def _kw_required(payload, *, flag): ...


@pytest.mark.parametrize("fn, needle", [(_none, "takes no arguments"),
                                        (_three, "requires 3 positional"),
                                        (_kw_required, "keyword-only parameter 'flag'")])
def test_unsupported_signatures(fn, needle):
    with pytest.raises(HandlerLoadError, match=needle):
        wants_context(fn)
