"""HTTP/1.1 server on a Unix socket: POST /invoke, GET /healthz."""

from __future__ import annotations

import logging
import os
import queue
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .envelope import (
    EnvelopeError,
    dumps,
    parse_envelope,
    parsing_error_body,
    processing_error_body,
)
from .handler import Handler, Invocation

log = logging.getLogger("taskmesh_runtime")


class BodyTooLarge(ValueError):
    """The request body is above SVC_MAX_BODY_BYTES (413)."""


class BadChunking(ValueError):
    """A broken Content-Length or chunked body (400)."""


class ConnectionWorkers:
    """Daemon threads that serve connections one after another.

    The sidecar opens one connection per message (the spec), so a thread per connection, as
    ThreadingMixIn starts, cost the creation and teardown of a thread on every message: most of
    the runtime's CPU per call. A worker that has served a connection waits for the next one; a
    new worker starts only when every worker is busy, so as many connections are served at once
    as before. Daemon threads, as before: a shutdown never waits for a handler.
    """

    def __init__(self, serve) -> None:
        self._serve = serve
        self._connections: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # workers done with their last connection and not handed a new one yet
        self._started = 0

    def submit(self, request, client_address) -> None:
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
            else:
                self._started += 1
                threading.Thread(target=self._work, name=f"runtime-conn-{self._started}",
                                 daemon=True).start()
        self._connections.put((request, client_address))

    def started(self) -> int:
        """Workers started so far (tests: reuse keeps this at the number served at once)."""
        with self._lock:
            return self._started

    def _work(self) -> None:
        while True:
            request, client_address = self._connections.get()
            try:
                self._serve(request, client_address)
            except BaseException:  # noqa: BLE001 - a worker outlives any one connection
                log.exception("unexpected error while serving a connection")
            finally:
                with self._lock:
                    self._idle += 1


class UnixHTTPServer(ThreadingHTTPServer):
    """An HTTP server on an AF_UNIX stream socket; connections are served by reused workers."""

    address_family = socket.AF_UNIX
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = False
    # socketserver's default backlog (5) makes a Unix-socket connect() fail with EAGAIN under
    # a small burst of clients instead of queueing them.
    request_queue_size = 128

    def __init__(self, path: str, handler: Handler, *, validate: bool, max_body: int):
        self.handler = handler
        self.validate = validate
        self.max_body = max_body
        self.workers = ConnectionWorkers(self.process_request_thread)
        super().__init__(path, RuntimeRequestHandler)

    def process_request(self, request, client_address) -> None:
        # ThreadingMixIn's process_request_thread (serve, shut the connection down, report an
        # error) on a worker instead of a new thread each time
        self.workers.submit(request, client_address)

    def server_bind(self) -> None:
        # HTTPServer.server_bind assumes a (host, port) address.
        socketserver.TCPServer.server_bind(self)
        self.server_name = "localhost"
        self.server_port = 0

    def handle_error(self, request, client_address) -> None:
        log.exception("unexpected error while serving a connection")


class RuntimeRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "taskmesh-runtime"
    # Socket read/write timeout: an idle keep-alive connection frees its thread after this.
    # (Time spent inside the handler does not count: no socket operation happens then.)
    timeout = 600
    server: UnixHTTPServer

    # -- http.server plumbing ------------------------------------------------------------------

    def version_string(self) -> str:
        return self.server_version

    def address_string(self) -> str:  # the peer of a Unix socket has no address
        return "unix"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - signature from base
        log.debug("%s " + format, self.address_string(), *args)

    def log_request(self, code="-", size="-") -> None:
        log.debug('"%s" %s', self.requestline, code)

    def __getattr__(self, name: str):
        # Any method without a do_X answers 404 (405 on /invoke and /healthz) instead of 501.
        if name.startswith("do_"):
            return self._no_route
        raise AttributeError(name)

    def send_error(self, code, message=None, explain=None) -> None:
        """Errors raised by http.server itself (bad request line, huge headers, ...) as JSON."""
        self.close_connection = True
        body = {"error": "bad_request" if code < 500 else "server_error",
                "details": {"message": message or self.responses.get(code, ("",))[0]}}
        if code == 404:
            body = {"error": "not_found"}
        try:
            self._send_json(code, body)
        except OSError:
            pass

    # -- response helpers ------------------------------------------------------------------------

    def _send_bytes(self, status: int, body: bytes, content_type: str | None,
                    extra: dict | None = None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _send_json(self, status: int, obj, extra: dict | None = None) -> None:
        self._send_bytes(status, dumps(obj).encode("utf-8"), "application/json", extra)

    def _send_json_text(self, status: int, text: str) -> None:
        self._send_bytes(status, text.encode("utf-8"), "application/json")

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def _no_route(self) -> None:
        path = self._path()
        self._drain_body()
        if path == "/invoke":
            self._send_json(405, {"error": "method_not_allowed"}, {"Allow": "POST"})
        elif path == "/healthz":
            self._send_json(405, {"error": "method_not_allowed"}, {"Allow": "GET"})
        else:
            self._send_json(404, {"error": "not_found"})

    # -- request body ----------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        max_body = self.server.max_body
        te = self.headers.get("Transfer-Encoding")
        if te is not None:
            if te.strip().lower() != "chunked":
                raise BadChunking(f"unsupported Transfer-Encoding {te!r}")
            return self._read_chunked(max_body)
        cl = self.headers.get("Content-Length")
        if cl is None:
            return b""
        try:
            length = int(cl)
            if length < 0:
                raise ValueError
        except ValueError:
            raise BadChunking(f"bad Content-Length {cl!r}") from None
        if length > max_body:
            raise BodyTooLarge(f"body of {length} bytes exceeds the limit of {max_body} bytes")
        body = self.rfile.read(length)
        if len(body) != length:
            raise BadChunking("connection closed before the whole body was received")
        return body

    def _read_chunked(self, max_body: int) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024)
            if not line.endswith(b"\n"):
                raise BadChunking("bad chunk size line")
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise BadChunking(f"bad chunk size {size_text!r}") from None
            if size < 0:
                raise BadChunking("negative chunk size")
            if size == 0:
                break
            total += size
            if total > max_body:
                raise BodyTooLarge(f"body exceeds the limit of {max_body} bytes")
            data = self.rfile.read(size)
            if len(data) != size:
                raise BadChunking("connection closed inside a chunk")
            parts.append(data)
            if self.rfile.readline(1024).strip():
                raise BadChunking("missing CRLF after chunk data")
        # trailers, up to the empty line
        while True:
            line = self.rfile.readline(8192)
            if not line or line in (b"\r\n", b"\n"):
                break
        return b"".join(parts)

    def _drain_body(self) -> None:
        """Consume a request body we do not use, so keep-alive stays in sync."""
        try:
            if self.headers.get("Transfer-Encoding") or self.headers.get("Content-Length"):
                self._read_body()
        except (BodyTooLarge, BadChunking):
            self.close_connection = True

    # -- routes ----------------------------------------------------------------------------------

    def do_GET(self) -> None:
        if self._path() == "/healthz":
            self._send_json(200, {"status": "ready"})
        else:
            self._no_route()

    def do_POST(self) -> None:
        if self._path() != "/invoke":
            self._no_route()
            return
        started = time.monotonic()
        try:
            body = self._read_body()
        except BodyTooLarge as exc:
            self.close_connection = True
            self._send_json(413, parsing_error_body(EnvelopeError(str(exc), exc)))
            return
        except BadChunking as exc:
            self.close_connection = True
            self._send_json(400, parsing_error_body(EnvelopeError(str(exc), exc)))
            return
        try:
            envelope = parse_envelope(body, validate=self.server.validate)
        except EnvelopeError as exc:
            log.info("invoke rejected: 400 msg_parsing_error (%s)", exc.message)
            self._send_json(400, parsing_error_body(exc))
            return
        log.debug("invoke id=%s route=%s payload=%s", envelope["id"], envelope["route"],
                  body[:2000].decode("utf-8", "replace"))
        inv = Invocation(self.server.handler, envelope)
        try:
            try:
                inv.start()
            except BaseException as exc:  # noqa: BLE001 - any handler failure: processing error
                self._handler_failed(envelope, exc)
                return
            if inv.streaming:
                # As on the reference runtime: a generator answers with the event stream whatever
                # the request's Accept header says, so there is one wire format for yielded output.
                self._stream(inv, started)
            else:
                self._single(inv, started)
        except (BrokenPipeError, ConnectionResetError):
            # the sidecar stopped waiting (the task was canceled or passed its deadline)
            self.close_connection = True
            log.info("invoke id=%s: the caller left before the answer; output dropped (%.1f ms)",
                     envelope["id"], _ms(started))

    # -- invoke responses ------------------------------------------------------------------------

    def _handler_failed(self, envelope: dict, exc: BaseException) -> None:
        log.error("handler %s failed for id=%s: %s: %s", self.server.handler.path, envelope["id"],
                  type(exc).__name__, exc, exc_info=exc)
        self._send_json(500, processing_error_body(exc))

    def _single(self, inv: Invocation, started: float) -> None:
        if inv.single is None:
            log.info("invoke id=%s -> 204 (%.1f ms)", inv.envelope["id"], _ms(started))
            self._send_bytes(204, b"", None)
            return
        try:
            frame = inv.frame(inv.single)
        except Exception as exc:  # unserializable return value, bad ctx.route["next"]
            self._handler_failed(inv.envelope, exc)
            return
        self._send_json_text(200, '{"frames":[' + frame + "]}")
        log.info("invoke id=%s -> 200 frames=1 (%.1f ms)", inv.envelope["id"], _ms(started))

    def _stream(self, inv: Invocation, started: float) -> None:
        """The reference runtime's event stream: ``upstream`` (one FLY object as
        ``{"payload": obj}``), ``downstream`` (one frame), ``error`` (``{"error", "details"}``)
        and, always last, ``done`` (``{}``). No ``downstream`` before ``done`` is the 204 case."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        counts = {"upstream": 0, "downstream": 0}
        events = inv.events()
        try:
            while True:
                try:
                    kind, data = next(events)
                except StopIteration:
                    break
                except BaseException as exc:  # noqa: BLE001 - handler failure: error, then done
                    log.error("handler %s failed for id=%s while streaming: %s: %s",
                              self.server.handler.path, inv.envelope["id"],
                              type(exc).__name__, exc, exc_info=exc)
                    self._event("error", dumps(processing_error_body(exc)))
                    break
                counts[kind] += 1
                self._event(kind, data)
            self._event("done", "{}")
            log.info("invoke id=%s -> 200 event-stream downstream=%d upstream=%d (%.1f ms)",
                     inv.envelope["id"], counts["downstream"], counts["upstream"], _ms(started))
        except OSError as exc:  # only writes are inside this try
            log.warning("invoke id=%s: client went away while streaming (%s)",
                        inv.envelope["id"], exc)
            inv.close()

    def _event(self, name: str, data: str) -> None:
        self.wfile.write(f"event: {name}\ndata: {data}\n\n".encode("utf-8"))
        self.wfile.flush()


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000.0


def remove_if_exists(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
