"""Handler loading (SVC_HANDLER) and invocation (sync/async functions and generators)."""

from __future__ import annotations

import importlib
import inspect
import threading
from typing import Any, Callable, Iterator

from . import verbs
from .envelope import dumps, frame_json, json_copy


class HandlerLoadError(Exception):
    """SVC_HANDLER cannot be imported, resolved or does not have a supported signature."""


class Fly:
    """A FLY (ephemeral event) yielded by a generator handler; see ``fly()``."""

    __slots__ = ("obj",)

    def __init__(self, obj: dict):
        if not isinstance(obj, dict):
            raise TypeError(f"fly() takes a JSON object (dict), got {type(obj).__name__}")
        self.obj = obj

    def __repr__(self) -> str:
        return f"fly({self.obj!r})"


def fly(obj: dict) -> Fly:
    """Mark a yielded value as a FLY event, e.g. ``yield fly({"partial": True, "text": "tok"})``."""
    return Fly(obj)


class Context:
    """Second handler argument (our handler style): a view on the invocation's envelope state.

    ``id``: envelope id; ``parent_id``: parent id of a fan-out child (``""`` if none);
    ``route``: dict with ``prev``, ``curr``, ``next`` (only changes to ``next`` are used);
    ``headers``: dict of envelope headers (changes are used, except the sidecar-managed
    ``traceparent``/``tracestate``). The yield verbs (``yield "SET", ".route.next", [...]``) act on
    the same state, so both ways of changing the route can be mixed.
    """

    __slots__ = ("_state",)

    def __init__(self, id: Any, route: dict, headers: dict, parent_id: str = "",
                 status: dict | None = None):
        self._state = {"id": id, "parent_id": parent_id, "route": route, "headers": headers,
                       "status": {} if status is None else status}

    @classmethod
    def over(cls, state: dict) -> "Context":
        ctx = cls.__new__(cls)
        ctx._state = state
        return ctx

    @property
    def id(self) -> Any:
        return self._state["id"]

    @property
    def parent_id(self) -> str:
        return self._state["parent_id"]

    @property
    def route(self) -> dict:
        return self._state["route"]

    @route.setter
    def route(self, value: dict) -> None:
        self._state["route"] = value

    @property
    def headers(self) -> dict:
        return self._state["headers"]

    @headers.setter
    def headers(self, value: dict) -> None:
        self._state["headers"] = value

    def __repr__(self) -> str:
        return f"Context(id={self.id!r}, route={self.route!r}, headers={self.headers!r})"


# --------------------------------------------------------------------------------------------
# loading


def _import_longest_prefix(parts: list[str]):
    """Import the longest importable module prefix of ``parts``; return (module, rest)."""
    last_error: BaseException | None = None
    for i in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:i])
        try:
            return importlib.import_module(name), parts[i:]
        except ModuleNotFoundError as exc:
            # Only "this very module (or a parent package) does not exist" means "try shorter";
            # a missing dependency imported *by* the module is a real error.
            if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
                last_error = exc
                continue
            raise HandlerLoadError(f"importing module {name!r} failed: {exc!r}") from exc
        except Exception as exc:  # syntax errors, exceptions at import time
            raise HandlerLoadError(f"importing module {name!r} failed: {exc!r}") from exc
    raise HandlerLoadError(f"no importable module in {'.'.join(parts)!r}: {last_error}")


_CONTEXT_PARAM_NAMES = ("ctx", "context")


def _is_context_annotation(annotation: Any) -> bool:
    if annotation is Context:
        return True
    # string annotations (``from __future__ import annotations``)
    return isinstance(annotation, str) and annotation.rsplit(".", 1)[-1] == "Context"


def wants_context(fn: Callable) -> bool:
    """Decide the handler style from the signature: ``(payload)`` or ``(payload, ctx)``.

    The context is passed only when the handler clearly asks for it: a second positional
    parameter that is required, named ``ctx``/``context``, or annotated ``Context``. Everything
    else (one parameter, an optional second one such as ``config=None``, ``*args`` wrappers,
    callables without an introspectable signature) is called with the payload only, the way the
    reference runtime calls every handler. Raises HandlerLoadError for signatures that fit neither.
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    positional = []
    has_var = False
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional.append(p)
        elif p.kind is p.VAR_POSITIONAL:
            has_var = True
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            raise HandlerLoadError(f"handler has a required keyword-only parameter {p.name!r}")
    required = sum(1 for p in positional if p.default is p.empty)
    if required > 2:
        raise HandlerLoadError(
            f"handler must take (payload) or (payload, ctx); it requires {required} positional arguments"
        )
    if not positional and not has_var:
        raise HandlerLoadError("handler must take (payload) or (payload, ctx); it takes no arguments")
    if len(positional) < 2:
        return False
    second = positional[1]
    return (second.default is second.empty or second.name in _CONTEXT_PARAM_NAMES
            or _is_context_annotation(second.annotation))


class Handler:
    """A loaded handler plus the knowledge of how to call it."""

    def __init__(self, path: str, fn: Callable, wants_ctx: bool):
        self.path = path
        self.fn = fn
        self.wants_ctx = wants_ctx
        self.kind = (
            "async generator" if inspect.isasyncgenfunction(fn)
            else "generator" if inspect.isgeneratorfunction(fn)
            else "async function" if inspect.iscoroutinefunction(fn)
            else "function"
        )
        self._bridge: AsyncBridge | None = None
        self._bridge_lock = threading.Lock()

    @property
    def bridge(self) -> "AsyncBridge":
        with self._bridge_lock:
            if self._bridge is None:
                self._bridge = AsyncBridge()
            return self._bridge

    def close(self) -> None:
        if self._bridge is not None:
            self._bridge.stop()

    def call(self, payload: Any, ctx: Context) -> Any:
        """Call the handler; awaits coroutines. Generators are returned un-iterated."""
        result = self.fn(payload, ctx) if self.wants_ctx else self.fn(payload)
        if inspect.iscoroutine(result):
            result = self.bridge.run(result)
        return result


def load_handler(path: str) -> Handler:
    parts = path.split(".")
    module, rest = _import_longest_prefix(parts)
    obj: Any = module
    for i, attr in enumerate(rest):
        try:
            target = getattr(obj, attr)
        except AttributeError:
            where = ".".join(parts[: len(parts) - len(rest) + i])
            raise HandlerLoadError(f"{where!r} has no attribute {attr!r}") from None
        if inspect.isclass(target) and i < len(rest) - 1:
            # module.Class.method: instantiate the class once with no arguments.
            try:
                target = target()
            except Exception as exc:
                raise HandlerLoadError(f"instantiating {attr}() failed: {exc!r}") from exc
        obj = target
    fn = obj
    if inspect.isclass(fn):
        # module.Class: an instance with __call__ is the handler.
        try:
            fn = fn()
        except Exception as exc:
            raise HandlerLoadError(f"instantiating {rest[-1]}() failed: {exc!r}") from exc
        if not callable(fn):
            raise HandlerLoadError(f"instances of {rest[-1]} are not callable")
    if not callable(fn):
        raise HandlerLoadError(f"{path!r} is not callable (got {type(fn).__name__})")
    wants_ctx = wants_context(fn)
    return Handler(path, fn, wants_ctx)


# --------------------------------------------------------------------------------------------
# async support


class AsyncBridge:
    """One event loop in a daemon thread shared by all calls (state bound to the loop survives)."""

    def __init__(self):
        import asyncio  # imported lazily: it is ~half of the start-up import time

        self._asyncio = asyncio
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="taskmesh-asyncio", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self._asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro) -> Any:
        return self._asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


# --------------------------------------------------------------------------------------------
# invocation


class Invocation:
    """One /invoke call: runs the handler and turns its output into serialized events.

    After ``start()``: ``streaming`` tells whether the handler returned a (sync or async)
    generator. ``single`` holds the return value of a non-generator handler. ``events()`` drives
    a generator handler lazily, carrying out its yield verbs and yielding ``("upstream", json)``
    (a FLY object wrapped as ``{"payload": obj}``) and ``("downstream", json)`` (one frame).
    Handler exceptions propagate out of ``start()`` and ``events()``.
    """

    def __init__(self, handler: Handler, envelope: dict):
        self.handler = handler
        self.envelope = envelope
        route = envelope["route"]
        # The envelope state the handler may read and change: through ctx (our style) and
        # through the yield verbs (reference style). Frames are built from it.
        self.state = {
            "id": envelope["id"] if envelope["id"] is not None else "",
            "parent_id": envelope.get("parent_id", ""),
            "route": {"prev": list(route["prev"]), "curr": route["curr"], "next": list(route["next"])},
            "headers": json_copy(envelope["headers"]),
            "status": json_copy(envelope.get("status", {})),
        }
        self.ctx = Context.over(self.state)
        self.streaming = False
        self.single: Any = None
        self._gen: Any = None
        self._async = False

    def start(self) -> None:
        result = self.handler.call(self.envelope["payload"], self.ctx)
        if inspect.isgenerator(result):
            self.streaming, self._gen = True, result
        elif inspect.isasyncgen(result):
            self.streaming, self._gen, self._async = True, result, True
        else:
            self.single = result

    def frame(self, payload: Any) -> str:
        route = self.state["route"]
        nxt = route.get("next") if isinstance(route, dict) else None
        return frame_json(payload, self.envelope["route"], nxt, self.envelope["headers"],
                          self.state["headers"], self.state.get("status"))

    def _resume(self, value: Any, error: BaseException | None) -> Any:
        """Next item of the generator: ``value`` sent in, or ``error`` raised at its ``yield``."""
        if not self._async:
            return self._gen.send(value) if error is None else self._gen.throw(error)
        step = self._gen.asend(value) if error is None else self._gen.athrow(error)
        return self.handler.bridge.run(step)

    def _command(self, command: tuple) -> tuple[Any, str | None]:
        """Carry out a yield verb: (value to send back, FLY json or None)."""
        verb = verbs.check_arity(command)
        if verb == "FLY":
            return None, dumps({"payload": Fly(command[1]).obj})
        if verb == "GET":
            return verbs.get(self.state, command[1]), None
        if verb == "SET":
            verbs.set_(self.state, command[1], command[2])
        else:
            verbs.delete(self.state, command[1])
        return None, None

    def events(self) -> Iterator[tuple[str, str]]:
        send: Any = None
        error: BaseException | None = None
        while True:
            try:
                item = self._resume(send, error)
            except (StopIteration, StopAsyncIteration):
                return
            send, error = None, None
            if isinstance(item, Fly):
                yield "upstream", dumps({"payload": item.obj})
            elif item is None:
                continue  # a yielded None produces no frame
            elif verbs.is_command(item):
                try:
                    send, fly_json = self._command(item)
                except Exception as exc:  # noqa: BLE001
                    # Raised at the handler's own yield: its traceback shows the faulty line,
                    # and a handler that does not catch it fails the call (500), as on the
                    # reference runtime.
                    error = exc
                    continue
                if fly_json is not None:
                    yield "upstream", fly_json
            else:
                yield "downstream", self.frame(item)

    def close(self) -> None:
        """Close an unfinished generator (client went away, or an error)."""
        if self._gen is None:
            return
        try:
            if self._async:
                self.handler.bridge.run(self._gen.aclose())
            else:
                self._gen.close()
        except Exception:
            pass
