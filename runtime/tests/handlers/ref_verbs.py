"""Reference-style handlers that use the yield verbs wrongly or at their edges."""


def set_prev(payload):
    yield "SET", ".route.prev", ["x"]
    yield payload


def set_curr(payload):
    yield "SET", ".route.curr", "x"
    yield payload


def set_id(payload):
    yield "SET", ".id", "other"
    yield payload


def set_whole_route(payload):
    yield "SET", ".route", {"prev": [], "curr": "", "next": []}
    yield payload


def del_prev_item(payload):
    yield "DEL", ".route.prev[0]"
    yield payload


def path_without_dot(payload):
    yield "GET", "route.next"


def path_with_garbage(payload):
    yield "GET", ".route..next"


def path_not_string(payload):
    yield "GET", 5


def get_missing(payload):
    yield "GET", ".headers.nope"


def get_slice(payload):
    yield "GET", ".route.next[0:1]"


def unknown_verb(payload):
    yield "PUT", ".route.next"


def lowercase_verb(payload):
    yield "set", ".route.next", []


def set_without_value(payload):
    yield "SET", ".route.next"


def pair_tuple(payload):
    yield ("a", "b")


def one_tuple(payload):
    yield ("only",)


def fly_not_object(payload):
    yield "FLY", "text"


def set_bad_next(payload):
    yield "SET", ".route.next", "not-a-list"
    yield payload


def catches(payload):
    try:
        yield "SET", ".route.prev", []
    except PermissionError as exc:
        yield {"caught": type(exc).__name__}


def status_rw(payload):
    phase = yield "GET", ".status.phase"
    yield "SET", ".status.phase", "changed"
    changed = yield "GET", ".status.phase"
    yield "DEL", ".status.phase"
    after = yield "GET", ".status"
    yield {"phase": phase, "changed": changed, "after": after}


def set_whole_headers(payload):
    yield "SET", ".headers", {"only": "this"}
    yield payload


def del_next_item(payload):
    yield "DEL", ".route.next[0]"
    yield payload


def get_is_a_copy(payload):
    nxt = yield "GET", ".route.next"
    nxt.append("not-applied")
    yield payload


def mixed(payload, ctx):
    """Our style using a verb: both act on the same state."""
    yield "SET", ".route.next", ["v"]
    seen = list(ctx.route["next"])
    ctx.headers["h"] = "1"
    hs = yield "GET", ".headers"
    yield {"seen": seen, "headers": hs}


def optional_config(payload, config=None):
    return {"config": config}


def star_args(*args):
    return {"args": len(args)}
