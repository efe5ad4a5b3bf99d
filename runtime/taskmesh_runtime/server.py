"""HTTP/1.1 server on a Unix socket: POST /invoke, GET /healthz."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

from .envelope import (
    EnvelopeError,
    dumps,
    parse_envelope,
    parsing_error_body,
    processing_error_body,
)
from .handler import Handler, Invocation
from .http1 import CONTINUE, HTTP_09, Request, RequestError, SocketReader, read_request, response_head

log = logging.getLogger("taskmesh_runtime")

# Socket read/write timeout: an idle keep-alive connection frees its thread after this.
# (Time spent inside the handler does not count: no socket operation happens then.)
IDLE_TIMEOUT_S = 600
# A Unix-socket connect() fails with EAGAIN once the backlog is full instead of waiting, so a
# burst of clients needs room to queue.
BACKLOG = 128


class BodyTooLarge(ValueError):
    """The request body is above SVC_MAX_BODY_BYTES (413)."""


class BadChunking(ValueError):
    """A broken Content-Length or chunked body (400)."""


class Acceptors:
    """Daemon threads that each accept a connection on the listening socket and serve it
    themselves, then go back to accept().

    The sidecar opens one connection per message (the spec). A thread per connection cost the
    creation of a thread on every message; one thread accepting and handing connections to
    workers cost a wake-up of a second thread on every message. Here the kernel wakes one of the
    threads waiting in accept() and that thread does the whole exchange. One thread is always
    kept waiting: the thread that takes the last waiting place starts another before it serves,
    so as many connections are served at once as arrive. Daemon threads: a shutdown never waits
    for a handler.
    """

    def __init__(self, listener: socket.socket, serve) -> None:
        self._listener = listener
        self._serve = serve
        self._lock = threading.Lock()
        self._waiting = 0  # threads in (or on their way to) accept()
        self._started = 0
        self._closing = False

    def start(self) -> None:
        with self._lock:
            self._start_one()

    def started(self) -> int:
        """Threads started so far (tests: this stays at the number served at once, plus one)."""
        with self._lock:
            return self._started

    def close(self) -> None:
        """Stop accepting: threads waiting in accept() return, busy ones end after their
        connection."""
        self._closing = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes every accept() with EINVAL
        except OSError:
            pass

    def _start_one(self) -> None:  # with the lock held
        self._started += 1
        self._waiting += 1
        threading.Thread(target=self._run, name=f"runtime-conn-{self._started}",
                         daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError as exc:
                if self._closing:
                    return
                log.warning("accept() failed: %s", exc)
                time.sleep(0.1)  # e.g. out of file descriptors: do not spin
                continue
            with self._lock:
                self._waiting -= 1
                if self._waiting == 0:
                    self._start_one()
            try:
                self._serve(conn)
            except BaseException:  # noqa: BLE001 - a thread outlives any one connection
                log.exception("unexpected error while serving a connection")
            # counted as waiting before the client sees the end of its connection: a client that
            # then connects again at once must not make a waiting thread start another
            with self._lock:
                self._waiting += 1
            conn.close()


class UnixHTTPServer:
    """The runtime's HTTP server on an AF_UNIX stream socket."""

    def __init__(self, path: str, handler: Handler, *, validate: bool, max_body: int):
        self.handler = handler
        self.validate = validate
        self.max_body = max_body
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.socket.bind(path)
            self.socket.listen(BACKLOG)
        except OSError:
            self.socket.close()
            raise
        self.acceptors = Acceptors(self.socket, self.serve_connection)

    def start(self) -> None:
        self.acceptors.start()

    def shutdown(self) -> None:
        self.acceptors.close()

    def server_close(self) -> None:
        self.socket.close()

    def serve_connection(self, conn: socket.socket) -> None:
        conn.settimeout(IDLE_TIMEOUT_S)
        Connection(conn, self).serve()


class Connection:
    """The requests of one accepted connection, answered one after another."""

    def __init__(self, sock: socket.socket, server: UnixHTTPServer):
        self.sock = sock
        self.server = server
        self.reader = SocketReader(sock)
        self.request: Request | None = None
        self.close_connection = True

    def serve(self) -> None:
        try:
            while self._serve_one() and not self.close_connection:
                pass
        except TimeoutError:
            log.debug("connection idle for %d s: closed", IDLE_TIMEOUT_S)

    def _serve_one(self) -> bool:
        """Read and answer one request; False when there was none."""
        self.close_connection = True
        self.request = None
        try:
            request = read_request(self.reader)
        except RequestError as exc:
            self._send_request_error(exc)
            return False
        if request is None:
            return False
        self.request = request
        self.close_connection = request.close
        if request.expects_continue:
            self.sock.sendall(CONTINUE)
        if request.method == "POST":
            self._post()
        elif request.method == "GET":
            self._get()
        else:
            self._no_route()
        return True

    def _send_request_error(self, exc: RequestError) -> None:
        """A request head we refuse: a JSON error, then the connection is closed."""
        log.debug("request head refused: %d %s", exc.status, exc.message)
        body = {"error": "bad_request" if exc.status < 500 else "server_error",
                "details": {"message": exc.message}}
        try:
            self._send_json(exc.status, body)
        except OSError:
            pass

    # -- response helpers ------------------------------------------------------------------------

    def _send_bytes(self, status: int, body: bytes, content_type: str | None,
                    extra: dict | None = None) -> None:
        request = self.request
        if request is not None:
            log.debug('"%s %s" %s', request.method, request.target, status)
        if request is not None and request.version == HTTP_09:
            self.sock.sendall(body)  # HTTP/0.9: the body alone
            return
        fields = [("Content-Type", content_type)] if content_type else []
        fields.append(("Content-Length", str(len(body))))
        fields.extend((extra or {}).items())
        if self.close_connection:
            fields.append(("Connection", "close"))
        answer = response_head(status, fields)
        if request is None or request.method != "HEAD":
            answer += body
        self.sock.sendall(answer)  # one send: head and body reach the client together

    def _send_json(self, status: int, obj, extra: dict | None = None) -> None:
        self._send_bytes(status, dumps(obj).encode("utf-8"), "application/json", extra)

    def _send_json_text(self, status: int, text: str) -> None:
        self._send_bytes(status, text.encode("utf-8"), "application/json")

    def _no_route(self) -> None:
        path = self.request.path
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
        headers = self.request.headers
        te = headers.get("transfer-encoding")
        if te is not None:
            if te.strip().lower() != "chunked":
                raise BadChunking(f"unsupported Transfer-Encoding {te!r}")
            return self._read_chunked(max_body)
        cl = headers.get("content-length")
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
        body = self.reader.read(length)
        if len(body) != length:
            raise BadChunking("connection closed before the whole body was received")
        return body

    def _read_chunked(self, max_body: int) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.reader.readline(1024)
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
            data = self.reader.read(size)
            if len(data) != size:
                raise BadChunking("connection closed inside a chunk")
            parts.append(data)
            if self.reader.readline(1024).strip():
                raise BadChunking("missing CRLF after chunk data")
        # trailers, up to the empty line
        while True:
            line = self.reader.readline(8192)
            if not line or line in (b"\r\n", b"\n"):
                break
        return b"".join(parts)

    def _drain_body(self) -> None:
        """Consume a request body we do not use, so keep-alive stays in sync."""
        headers = self.request.headers
        try:
            if headers.get("transfer-encoding") or headers.get("content-length"):
                self._read_body()
        except (BodyTooLarge, BadChunking):
            self.close_connection = True

    # -- routes ----------------------------------------------------------------------------------

    def _get(self) -> None:
        if self.request.path == "/healthz":
            self._send_json(200, {"status": "ready"})
        else:
            self._no_route()

    def _post(self) -> None:
        if self.request.path != "/invoke":
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
        log.debug('"%s %s" 200', self.request.method, self.request.target)
        self.sock.sendall(response_head(200, [("Content-Type", "text/event-stream"),
                                              ("Cache-Control", "no-cache"),
                                              ("Connection", "close")]))
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
        self.sock.sendall(f"event: {name}\ndata: {data}\n\n".encode("utf-8"))


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000.0


def remove_if_exists(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
