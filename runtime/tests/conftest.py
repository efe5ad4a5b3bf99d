"""Test helpers: start a real runtime process on a real Unix socket, talk HTTP/1.1 to it."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

RUNTIME_DIR = Path(__file__).resolve().parent.parent
HANDLERS_DIR = RUNTIME_DIR / "tests" / "handlers"
EXAMPLES_DIR = RUNTIME_DIR / "examples"

sys.path.insert(0, str(RUNTIME_DIR))
sys.path.insert(0, str(HANDLERS_DIR))
sys.path.insert(0, str(EXAMPLES_DIR))


def wait_until(cond, timeout=10.0, interval=0.01, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = 10.0):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.unix_path)
        self.sock = sock


class Response:
    def __init__(self, status: int, headers: dict, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"Response({self.status}, {self.body[:300]!r})"


class Runtime:
    """A runtime subprocess. ``socket_dir`` is a private temp dir."""

    def __init__(self, handler: str | None, env: dict | None = None, extra_path=(),
                 socket_dir: str | None = None):
        self.socket_dir = socket_dir or tempfile.mkdtemp(prefix="tmrt-", dir="/tmp")
        self.socket_name = (env or {}).get("SVC_SOCKET_NAME", "svc-runtime.sock")
        self.socket_path = os.path.join(self.socket_dir, self.socket_name)
        self.ready_path = os.path.join(self.socket_dir, "runtime-ready")
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        full_env["PYTHONPATH"] = os.pathsep.join(
            [str(RUNTIME_DIR), str(HANDLERS_DIR), str(EXAMPLES_DIR), *map(str, extra_path)])
        full_env["SVC_SOCKET_DIR"] = self.socket_dir
        full_env["PYTHONUNBUFFERED"] = "1"
        if handler is not None:
            full_env["SVC_HANDLER"] = handler
        full_env.update(env or {})
        fd, self.stderr_path = tempfile.mkstemp(prefix="tmrt-err-", dir="/tmp")
        os.close(fd)
        self._stderr = open(self.stderr_path, "w+")
        # SIGINT as a terminal leaves it: a run started as a background job (CI in a script
        # without job control) has it ignored, and the runtime keeps an ignored SIGINT ignored
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "taskmesh_runtime"], env=full_env, cwd=str(RUNTIME_DIR),
            stdout=subprocess.DEVNULL, stderr=self._stderr,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    # lifecycle --------------------------------------------------------------------------------

    def wait_ready(self, timeout=10.0):
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"runtime exited with {self.proc.returncode}: {self.stderr()}")
            return os.path.exists(self.ready_path)
        wait_until(ready, timeout, what="ready file")
        return self

    def wait_exit(self, timeout=10.0) -> int:
        return self.proc.wait(timeout)

    def stderr(self) -> str:
        self._stderr.flush()
        with open(self.stderr_path) as f:
            return f.read()

    def signal(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._stderr.close()
        os.unlink(self.stderr_path)
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    # HTTP --------------------------------------------------------------------------------------

    def connection(self, timeout=10.0) -> UnixHTTPConnection:
        return UnixHTTPConnection(self.socket_path, timeout)

    def request(self, method: str, path: str, body=None, headers=None) -> Response:
        conn = self.connection()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            data = resp.read()
            return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data)
        finally:
            conn.close()

    def invoke(self, envelope, headers=None) -> Response:
        body = envelope if isinstance(envelope, (bytes, str)) else json.dumps(envelope)
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        return self.request("POST", "/invoke", body=body, headers=hdrs)


def envelope(payload, prev=(), curr="a", next_=("b", "c"), headers=None, id_="env-1"):
    env = {"id": id_, "route": {"prev": list(prev), "curr": curr, "next": list(next_)},
           "payload": payload}
    if headers is not None:
        env["headers"] = headers
    return env


def sse_events(body: bytes) -> list:
    """(event, data-json) pairs of a complete event-stream body."""
    out = []
    for block in body.decode("utf-8").split("\n\n"):
        if not block:
            continue
        lines = block.split("\n")
        assert len(lines) == 2 and lines[0].startswith("event: ") and lines[1].startswith("data: "), block
        out.append((lines[0][7:], json.loads(lines[1][6:])))
    return out


def outcome(resp: "Response") -> tuple:
    """What a sidecar makes of an answer, JSON or event stream: (status, body or None).

    A stream becomes its JSON equivalent: ``error`` wins (500 and its body), no ``downstream``
    is 204, otherwise 200 with the frames and, when there were any, the FLY objects as ``fly``.
    """
    if resp.headers.get("content-type") != "text/event-stream":
        return resp.status, (resp.json() if resp.body else None)
    events = sse_events(resp.body)
    assert events and events[-1] == ("done", {}), events
    frames, flies = [], []
    for name, data in events[:-1]:
        if name == "error":
            return 500, data
        (frames if name == "downstream" else flies).append(
            data if name == "downstream" else data["payload"])
    if not frames:
        return 204, None
    body = {"frames": frames}
    if flies:
        body["fly"] = flies
    return 200, body


def read_sse(resp):
    """Yield (event, data-json) pairs from an http.client response as they arrive."""
    event, data = None, []
    while True:
        line = resp.fp.readline()
        if not line:
            return
        line = line.decode("utf-8").rstrip("\r\n")
        if line == "":
            if event is not None or data:
                yield event, json.loads("\n".join(data))
            event, data = None, []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))


@pytest.fixture
def start_runtime():
    started: list[Runtime] = []

    def start(handler, env=None, wait=True, **kw) -> Runtime:
        rt = Runtime(handler, env, **kw)
        started.append(rt)
        if wait:
            rt.wait_ready()
        return rt

    yield start
    for rt in started:
        rt.stop()


@pytest.fixture(scope="session")
def _shared_runtimes():
    cache: dict = {}
    yield cache
    for rt in cache.values():  # signal all first, then reap: shutdowns overlap
        if rt.proc.poll() is None:
            rt.signal(signal.SIGTERM)
    for rt in cache.values():
        rt.stop()


@pytest.fixture
def shared_runtime(_shared_runtimes):
    """A runtime reused by every test asking for the same handler and env (stateless handlers)."""

    def get(handler, env=None) -> Runtime:
        key = (handler, tuple(sorted((env or {}).items())))
        rt = _shared_runtimes.get(key)
        if rt is None or rt.proc.poll() is not None:
            rt = Runtime(handler, env).wait_ready()
            _shared_runtimes[key] = rt
        return rt

    return get
