"""The part of HTTP/1.1 the runtime speaks: request heads read straight off the socket, answers
written with one send.

http.server parsed each head with the email package and wrote through file objects wrapped
around the socket. The sidecar opens a connection per message, so that work was paid on every
call, for features (MIME headers, buffered files) the runtime does not use. The limits stay
http.server's: a request line or header line of at most 65536 bytes, at most 100 header lines;
what is refused gets a status and a message the caller can read.
"""

from __future__ import annotations

import re
import socket
import time
from http import HTTPStatus

MAX_LINE = 65536
MAX_HEADERS = 100
HTTP_09 = (0, 9)
SERVER_NAME = "taskmesh-runtime"

# One recv usually brings a sidecar's whole request (head and envelope).
_RECV_SIZE = 65536
_REASONS = {status.value: status.phrase for status in HTTPStatus}
# A header field: a token, a colon, the value without the whitespace around it.
_HEADER_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)[ \t]*\r?\n", re.DOTALL)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class RequestError(Exception):
    """A request head we cannot serve; answered with ``status`` and the connection closed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class SocketReader:
    """Buffered reads from a connected socket: lines for the head, byte counts for the body."""

    __slots__ = ("_sock", "_buf", "_pos")

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._buf = b""
        self._pos = 0

    def _take(self, n: int) -> bytes:
        data = self._buf[self._pos:self._pos + n]
        self._pos += len(data)
        return data

    def readline(self, limit: int) -> bytes:
        """Bytes up to and including the next LF, at most ``limit`` of them; a line without its
        LF only when the limit or the end of the stream came first."""
        end = self._buf.find(b"\n", self._pos, self._pos + limit)
        if end >= 0:
            return self._take(end + 1 - self._pos)
        return self._readline_from_socket(limit)

    def _readline_from_socket(self, limit: int) -> bytes:
        # Each received piece is searched once: a line sent a byte at a time costs no more than
        # one sent at once (rescanning the whole buffer after each recv would be quadratic).
        parts = [self._take(limit)]
        size = len(parts[0])
        while size < limit:
            data = self._sock.recv(_RECV_SIZE)
            if not data:
                break
            end = data.find(b"\n", 0, limit - size)
            used = end + 1 if end >= 0 else min(len(data), limit - size)
            parts.append(data[:used])
            size += used
            self._buf, self._pos = data, used
            if end >= 0:
                break
        return b"".join(parts)

    def read(self, n: int) -> bytes:
        """``n`` bytes; fewer only when the stream ends first."""
        if len(self._buf) - self._pos >= n:
            return self._take(n)
        parts = [self._take(n)]
        missing = n - len(parts[0])
        while missing > 0:
            data = self._sock.recv(min(missing, 1 << 20))
            if not data:
                break
            parts.append(data)
            missing -= len(data)
        return b"".join(parts)


class Request:
    """A request's head. ``version`` is (major, minor), (0, 9) for a bare ``GET /path``;
    ``headers`` maps lower-case names to the first value sent."""

    __slots__ = ("method", "target", "version", "headers", "close")

    def __init__(self, method: str, target: str, version: tuple[int, int],
                 headers: dict[str, str]):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.close = _closes_after(version, headers.get("connection", ""))

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def expects_continue(self) -> bool:
        return self.version >= (1, 1) and self.headers.get("expect", "").lower() == "100-continue"


def _closes_after(version: tuple[int, int], connection: str) -> bool:
    """Keep-alive as http.server decided it: HTTP/1.1 keeps the connection unless the client
    says ``close``, HTTP/1.0 closes it unless the client says ``keep-alive``; HTTP/0.9 always
    closes (its answer has no head to delimit the body)."""
    if version == HTTP_09:
        return True
    connection = connection.lower()
    if connection == "close":
        return True
    if connection == "keep-alive":
        return False
    return version < (1, 1)


def read_request(reader: SocketReader) -> Request | None:
    """The next request's head, or None when the client closed the connection (or sent an empty
    line) instead. Raises RequestError for a head we refuse."""
    line = reader.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE:
        raise RequestError(414, f"request line longer than {MAX_LINE} bytes")
    if not line.endswith(b"\n"):
        raise RequestError(400, "connection closed inside the request line")
    words = line.decode("iso-8859-1").rstrip("\r\n").split()
    if not words:
        return None
    method, target, version = _request_line(words)
    return Request(method, _collapse_leading_slashes(target), version, read_headers(reader))


def _request_line(words: list[str]) -> tuple[str, str, tuple[int, int]]:
    if len(words) == 2:  # HTTP/0.9: "GET /path" and nothing else
        if words[0] != "GET":
            raise RequestError(400, f"HTTP/0.9 request with method {words[0][:40]!r}")
        return words[0], words[1], HTTP_09
    if len(words) != 3:
        raise RequestError(400, "request line is not 'METHOD target HTTP/x.y'")
    version = _version_number(words[2])
    if version is None:
        raise RequestError(400, f"bad HTTP version {words[2][:40]!r}")
    if version >= (2, 0):
        raise RequestError(505, f"HTTP version {words[2][:40]!r} is not supported")
    return words[0], words[1], version


def _version_number(version: str) -> tuple[int, int] | None:
    if not version.startswith("HTTP/"):
        return None
    parts = version[5:].split(".")
    if len(parts) != 2 or not all(p.isdigit() and p.isascii() and len(p) <= 10 for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _collapse_leading_slashes(target: str) -> str:
    # As http.server does: "//host/x" must not be taken for a scheme-relative URL downstream.
    return "/" + target.lstrip("/") if target.startswith("//") else target


def read_headers(reader: SocketReader) -> dict[str, str]:
    """Header fields up to the empty line. Names are case-insensitive (stored lower-case); of a
    repeated field the first value counts, except that Content-Length values must agree (two
    lengths would let two readers of the stream split it differently)."""
    headers: dict[str, str] = {}
    count = 0
    while True:
        line = reader.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise RequestError(431, f"header line longer than {MAX_LINE} bytes")
        if line == b"\r\n" or line == b"\n":
            return headers
        count += 1
        if count > MAX_HEADERS:
            raise RequestError(431, f"more than {MAX_HEADERS} header lines")
        name, value = _header_field(line)
        first = headers.setdefault(name, value)
        if name == "content-length" and first != value:
            raise RequestError(400, "Content-Length sent twice with different values")


def _header_field(line: bytes) -> tuple[str, str]:
    if not line.endswith(b"\n"):
        raise RequestError(400, "connection closed inside the request head")
    if line[:1] in (b" ", b"\t"):
        raise RequestError(400, "obsolete line folding in the request head")
    match = _HEADER_LINE.fullmatch(line)
    if match is None:
        shown = line[:60].decode("iso-8859-1").rstrip("\r\n")
        raise RequestError(400, f"bad header line {shown!r}")
    return match[1].decode("ascii").lower(), match[2].decode("iso-8859-1")


def response_head(status: int, fields: list[tuple[str, str]]) -> bytes:
    """Status line and header block of an answer, with http.server's Server and Date first."""
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, '')}\r\n"
             f"Server: {SERVER_NAME}\r\nDate: {http_date()}\r\n"]
    lines.extend(f"{name}: {value}\r\n" for name, value in fields)
    lines.append("\r\n")
    return "".join(lines).encode("iso-8859-1")


CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

_date_cache: tuple[int, str] = (-1, "")


def http_date() -> str:
    """The Date header's value (IMF-fixdate), formatted once per second."""
    global _date_cache
    now = int(time.time())
    second, text = _date_cache
    if second != now:
        t = time.gmtime(now)
        text = (f"{_DAYS[t.tm_wday]}, {t.tm_mday:02d} {_MONTHS[t.tm_mon - 1]} {t.tm_year} "
                f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT")
        _date_cache = (now, text)
    return text
