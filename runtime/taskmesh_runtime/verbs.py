"""Yield verbs of generator handlers (the reference runtime's handler style).

A generator may yield a tuple whose first item is a verb instead of an output value:

* ``("FLY", obj)``: an ephemeral event for the client (same as ``fly(obj)``);
* ``("GET", path)``: the value at ``path`` is sent back into the generator
  (``prev = yield "GET", ".route.prev"``);
* ``("SET", path, value)``: store a copy of ``value`` at ``path``;
* ``("DEL", path)``: remove the key or list item at ``path``.

Paths address the invocation's envelope state ``{id, parent_id, route: {prev, curr, next},
headers, status}`` and are written ``.key``, ``["key"]``, ``[index]`` and, as the last segment
of a SET only, ``[start:stop]`` (e.g. ``.route.next[0]``, ``.headers["x-trace"]``,
``.route.next[1:]``). Everything is readable; SET and DEL are allowed only under
``.route.next``, ``.headers`` and ``.status``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

VERBS = ("FLY", "GET", "SET", "DEL")
_ARITY = {"FLY": 2, "GET": 2, "SET": 3, "DEL": 2}

# One segment at a time, anchored where the previous one ended (see parse_path).
_SEGMENT = re.compile(
    r"\.(?P<name>[A-Za-z_][A-Za-z0-9_-]*)"
    r'|\["(?P<quoted>[^"]+)"\]'
    r"|\[(?P<index>-?\d+)\]"
    r"|\[(?P<start>-?\d*):(?P<stop>-?\d*)\]"
)

# (first key, second key or None): the writable subtrees.
_WRITABLE = (("route", "next"), ("headers", None), ("status", None))


def is_command(item: Any) -> bool:
    """A yielded tuple of two or more items is a verb command; anything else is an output value.

    (A one-item or empty tuple stays an output value, as on the reference runtime.)
    """
    return isinstance(item, tuple) and len(item) >= 2


def parse_path(path: Any) -> list[tuple[str, Any]]:
    """Split a path into ``("key", str)``, ``("idx", int)`` and ``("slice", slice)`` segments.

    The whole text must be made of segments: a typo is an error, not a silently shorter path.
    """
    if not isinstance(path, str):
        raise TypeError(f"a path must be a string like '.route.next', got {type(path).__name__}")
    if not path.startswith("."):
        raise ValueError(f"a path must start with '.': {path!r}")
    segments: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(path):
        m = _SEGMENT.match(path, pos)
        if m is None:
            raise ValueError(f"bad path {path!r}: cannot read it from position {pos}")
        if m.group("name") is not None:
            segments.append(("key", m.group("name")))
        elif m.group("quoted") is not None:
            segments.append(("key", m.group("quoted")))
        elif m.group("index") is not None:
            segments.append(("idx", int(m.group("index"))))
        else:
            start, stop = m.group("start"), m.group("stop")
            segments.append(("slice", slice(int(start) if start else None,
                                            int(stop) if stop else None)))
        pos = m.end()
    return segments


def _walk(node: Any, segments: list, create: bool = False) -> Any:
    for kind, key in segments:
        if kind == "slice":
            raise ValueError("a slice may only be the last segment of a SET path")
        if kind == "key" and create and isinstance(node, dict) and key not in node:
            node[key] = {}
        node = node[key]
    return node


def _check_writable(verb: str, path: str, segments: list) -> None:
    keys = [key for kind, key in segments[:2]]
    for first, second in _WRITABLE:
        if keys[:1] == [first] and (second is None or keys[1:2] == [second]):
            return
    raise PermissionError(f"{verb} {path!r} is not allowed: only .route.next, .headers and "
                          f".status can be changed")


def get(state: dict, path: str) -> Any:
    segments = parse_path(path)
    if any(kind == "slice" for kind, _ in segments):
        raise ValueError(f"GET {path!r}: slices are only allowed in SET")
    return copy.deepcopy(_walk(state, segments))


def set_(state: dict, path: str, value: Any) -> None:
    segments = parse_path(path)
    _check_writable("SET", path, segments)
    parent = _walk(state, segments[:-1], create=True)
    parent[segments[-1][1]] = copy.deepcopy(value)


def delete(state: dict, path: str) -> None:
    segments = parse_path(path)
    _check_writable("DEL", path, segments)
    if any(kind == "slice" for kind, _ in segments):
        raise ValueError(f"DEL {path!r}: slices are only allowed in SET")
    parent = _walk(state, segments[:-1])
    del parent[segments[-1][1]]


def check_arity(command: tuple) -> str:
    """The verb of a command tuple; raises for an unknown verb or a wrong number of items."""
    verb = command[0]
    if not isinstance(verb, str) or verb not in _ARITY:
        raise RuntimeError(f"unknown yield verb {verb!r}: a yielded tuple of two or more items "
                           f"must start with one of {', '.join(VERBS)} (yield a list to output "
                           f"a list)")
    if len(command) != _ARITY[verb]:
        raise RuntimeError(f"yield {verb!r} takes {_ARITY[verb] - 1} argument(s) after the verb, "
                           f"got {len(command) - 1}")
    return verb
