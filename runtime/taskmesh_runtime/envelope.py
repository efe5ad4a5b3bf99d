"""Envelope parsing/validation, route shifting and frame/error bodies (pure functions)."""

from __future__ import annotations

import json
import traceback
from typing import Any

# Sidecar-managed headers (W3C Trace Context): handlers must not overwrite them; the runtime
# restores the request's values in every output frame.
PROTECTED_HEADERS = ("traceparent", "tracestate")


class EnvelopeError(Exception):
    """Malformed JSON or an invalid envelope: answered with 400 msg_parsing_error.

    ``cause`` is the exception the details describe (the JSON decoder's own error, or a
    ``ValueError`` for a validation failure, as the reference runtime raises); ``field`` is our
    addition: the dotted field at fault, ``""`` for the whole document, ``None`` for parse errors.
    """

    def __init__(self, message: str, cause: BaseException | None = None,
                 field: str | None = None):
        super().__init__(message)
        self.message = message
        self.cause = cause if cause is not None else ValueError(message)
        self.field = field

    def details(self) -> dict:
        details = error_details(self.cause)
        details["message"] = self.message
        details["field"] = self.field
        return details


class _NotJson(ValueError):
    """A token Python's json module accepts but JSON does not (NaN, Infinity, 1e999)."""


def _reject_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NotJson(f"number {text[:40]} is too large for a 64-bit float")
    return value


def json_copy(value: Any) -> Any:
    """A deep copy of parsed JSON (dicts, lists and scalars only).

    copy.deepcopy does the same with a memo of every object it visits, for cycles and shared
    references that parsed JSON cannot have: several times the work, on every call.
    """
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def parse_json(body: bytes) -> Any:
    """Strict RFC 8259 JSON: Python's extensions (NaN, Infinity, overflowing numbers) refused."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EnvelopeError(f"request body is not valid UTF-8: {exc}", exc) from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise EnvelopeError(f"malformed JSON: {exc}", exc) from None
    except ValueError as exc:  # _NotJson, or an integer beyond Python's digit limit
        raise EnvelopeError(f"not JSON: {exc}", exc) from None
    except RecursionError as exc:
        raise EnvelopeError("malformed JSON: nesting too deep", exc) from None


def validate_envelope(doc: Any) -> None:
    """Raise EnvelopeError naming the first bad field."""
    if not isinstance(doc, dict):
        raise EnvelopeError("envelope must be a JSON object", field="")
    if "id" not in doc:
        raise EnvelopeError("missing required field 'id'", field="id")
    if not isinstance(doc["id"], str) or not doc["id"]:
        raise EnvelopeError("'id' must be a non-empty string", field="id")
    if "route" not in doc:
        raise EnvelopeError("missing required field 'route'", field="route")
    route = doc["route"]
    if not isinstance(route, dict):
        raise EnvelopeError("'route' must be an object", field="route")
    for key, check, kind in (
        ("prev", _is_str_list, "a list of strings"),
        ("curr", lambda v: isinstance(v, str), "a string"),
        ("next", _is_str_list, "a list of strings"),
    ):
        if key not in route:
            raise EnvelopeError(f"missing required field 'route.{key}'", field=f"route.{key}")
        if not check(route[key]):
            raise EnvelopeError(f"'route.{key}' must be {kind}", field=f"route.{key}")
    if "payload" not in doc:
        raise EnvelopeError("missing required field 'payload'", field="payload")
    if "headers" in doc and not isinstance(doc["headers"], dict):
        raise EnvelopeError("'headers' must be an object", field="headers")


def normalize_envelope(doc: dict) -> dict:
    """Best-effort envelope with every field present (used with and without validation)."""
    route = doc.get("route")
    route = route if isinstance(route, dict) else {}
    prev = route.get("prev")
    curr = route.get("curr")
    nxt = route.get("next")
    headers = doc.get("headers")
    status = doc.get("status")
    return {
        "id": doc.get("id"),
        # parent_id and status are not validated; yield "GET" reads them, and a non-empty status
        # (after SET/DEL .status) goes out with each frame, as on the reference runtime.
        "parent_id": doc.get("parent_id") if isinstance(doc.get("parent_id"), str) else "",
        "status": json_copy(status) if isinstance(status, dict) else {},
        "route": {
            "prev": list(prev) if _is_str_list(prev) else [],
            "curr": curr if isinstance(curr, str) else "",
            "next": list(nxt) if _is_str_list(nxt) else [],
        },
        "payload": doc.get("payload"),
        "headers": dict(headers) if isinstance(headers, dict) else {},
    }


def parse_envelope(body: bytes, validate: bool = True) -> dict:
    """Parse a request body into a normalized envelope.

    With validation off only the JSON parse is checked (plus: the document must be an object,
    otherwise there is no envelope at all); missing or wrong-typed fields get defaults.
    """
    doc = parse_json(body)
    if validate:
        validate_envelope(doc)
    elif not isinstance(doc, dict):
        raise EnvelopeError("envelope must be a JSON object", field="")
    return normalize_envelope(doc)


def shift_route(prev: list[str], curr: str, next_: list[str]) -> dict:
    """Route of an output frame: prev gains the actor that ran, curr advances.

    An empty ``curr`` (no actor recorded) is not appended to ``prev``.
    """
    new_prev = list(prev) + ([curr] if curr else [])
    return {
        "prev": new_prev,
        "curr": next_[0] if next_ else "",
        "next": list(next_[1:]),
    }


def output_headers(request_headers: dict, handler_headers: Any) -> dict:
    if not isinstance(handler_headers, dict):
        raise TypeError(f"headers must be a dict (ctx.headers / SET .headers), "
                        f"got {type(handler_headers).__name__}")
    out = dict(handler_headers)
    for name in PROTECTED_HEADERS:
        if name in request_headers:
            out[name] = request_headers[name]
        else:
            out.pop(name, None)
    return out


def frame_json(payload: Any, request_route: dict, handler_next: Any, request_headers: dict,
               handler_headers: Any, status: Any = None) -> str:
    """Serialize one output frame (snapshot taken now). Raises TypeError/ValueError on bad data.

    The frame has the reference runtime's shape: ``headers`` only when non-empty and ``status``
    only when the handler's status object is non-empty. One exception keeps meaning intact: a
    handler that emptied headers the request had gets an explicit ``"headers": {}``, since a
    frame without ``headers`` tells the sidecar to keep the request's headers.
    """
    if not _is_str_list(handler_next):
        raise TypeError("route next must be a list of strings (ctx.route['next'] / "
                        "SET .route.next)")
    frame: dict = {
        "payload": payload,
        "route": shift_route(request_route["prev"], request_route["curr"], handler_next),
    }
    headers = output_headers(request_headers, handler_headers)
    if headers or request_headers:
        frame["headers"] = headers
    if status:
        frame["status"] = status
    return dumps(frame)


def dumps(obj: Any) -> str:
    """Single-line compact JSON; NaN/Infinity rejected (not JSON).

    ASCII-only on purpose: no raw U+2028/U+0085 that line splitters of SSE clients could cut.
    """
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def qualified_name(cls: type) -> str:
    """``module.QualName`` of a class; builtins stay bare (``ValueError``), as the reference does."""
    module = getattr(cls, "__module__", None)
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in (None, "builtins") else f"{module}.{name}"


def error_details(exc: BaseException) -> dict:
    """``details`` of an error body, filled the way the reference runtime fills them.

    ``type``: qualified class name. ``mro``: the base classes, most specific first, without the
    class itself, ``BaseException`` and ``object`` (``KeyError`` -> ``["LookupError",
    "Exception"]``). ``traceback``: the formatted Python traceback.
    """
    cls = type(exc)
    return {
        "message": str(exc),
        "type": qualified_name(cls),
        "mro": [qualified_name(c) for c in cls.__mro__[1:] if c not in (BaseException, object)],
        "traceback": "".join(traceback.format_exception(cls, exc, exc.__traceback__)),
    }


def processing_error_body(exc: BaseException) -> dict:
    return {"error": "processing_error", "details": error_details(exc)}


def parsing_error_body(err: EnvelopeError) -> dict:
    return {"error": "msg_parsing_error", "details": err.details()}
