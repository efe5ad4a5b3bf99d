"""The runtime's own HTTP/1.1 reading and writing (taskmesh_runtime/http1.py), byte by byte on a
real socket: heads the sidecar and curl send, odd and broken heads, limits."""

import email.utils
import json
import re
import socket
import time

import pytest

from conftest import envelope

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


def _connect(rt) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(rt.socket_path)
    return s


def _read_to_end(s: socket.socket) -> bytes:
    chunks = []
    while True:
        data = s.recv(65536)
        if not data:
            return b"".join(chunks)
        chunks.append(data)


def exchange(rt, *pieces: bytes, pause: float = 0.0) -> bytes:
    """Send the pieces (pausing between them), half-close, read everything the runtime sends."""
    with _connect(rt) as s:
        for i, piece in enumerate(pieces):
            if i and pause:
                time.sleep(pause)
            s.sendall(piece)
        s.shutdown(socket.SHUT_WR)
        return _read_to_end(s)


def responses(raw: bytes) -> list:
    """(status, headers with lower-case names, body) of each Content-Length answer in ``raw``."""
    out = []
    while raw:
        head, _, raw = raw.partition(b"\r\n\r\n")
        lines = head.decode("iso-8859-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(": ")
            headers[name.lower()] = value
        length = int(headers.get("content-length", len(raw)))
        out.append((int(lines[0].split(" ", 2)[1]), headers, raw[:length]))
        raw = raw[length:]
    return out


def only(raw: bytes):
    [answer] = responses(raw)
    return answer


def invoke_request(body: bytes, *header_lines: bytes, eol=b"\r\n") -> bytes:
    lines = [b"POST /invoke HTTP/1.1", b"Host: x", *header_lines,
             b"Content-Length: %d" % len(body)]
    return eol.join(lines) + eol + eol + body


BODY = json.dumps(envelope({"x": 1})).encode()


def _payload(body: bytes):
    return json.loads(body)["frames"][0]["payload"]


def test_sidecar_request_answer_head(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    raw = exchange(rt, invoke_request(BODY, b"Content-Type: application/json",
                                      b"Accept: text/event-stream, application/json",
                                      b"Connection: close"))
    status, headers, body = only(raw)
    assert status == 200 and _payload(body) == {"x": 1}
    assert raw.startswith(b"HTTP/1.1 200 OK\r\nServer: taskmesh-runtime\r\nDate: ")
    assert re.fullmatch(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT", headers["date"])
    assert abs(email.utils.parsedate_to_datetime(headers["date"]).timestamp() - time.time()) < 5
    assert headers["content-type"] == "application/json"
    assert headers["content-length"] == str(len(body))
    assert headers["connection"] == "close"


def test_header_names_are_case_insensitive(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    body = BODY
    req = (b"POST /invoke HTTP/1.1\r\nhost: x\r\nCONTENT-LENGTH: %d\r\ncOnNeCtIoN: CLOSE\r\n\r\n"
           % len(body)) + body
    status, headers, answer = only(exchange(rt, req))
    assert status == 200 and _payload(answer) == {"x": 1}
    assert headers["connection"] == "close"


def test_bare_lf_line_ends(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    status, _, body = only(exchange(rt, invoke_request(BODY, b"Connection: close", eol=b"\n")))
    assert status == 200 and _payload(body) == {"x": 1}


def test_repeated_headers(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    n = b"Content-Length: %d" % len(BODY)
    same = b"POST /invoke HTTP/1.1\r\nX-A: 1\r\nX-A: 2\r\n" + n + b"\r\n" + n + b"\r\n\r\n" + BODY
    assert only(exchange(rt, same))[0] == 200
    conflicting = (b"POST /invoke HTTP/1.1\r\n" + n + b"\r\nContent-Length: 3\r\n\r\n" + BODY)
    status, headers, body = only(exchange(rt, conflicting))
    assert status == 400 and headers["connection"] == "close"
    assert json.loads(body) == {"error": "bad_request", "details": {
        "message": "Content-Length sent twice with different values"}}


@pytest.mark.parametrize("line, message", [
    (b" folded", "obsolete line folding in the request head"),
    (b"no colon here", "bad header line 'no colon here'"),
    (b"Bad Name: x", "bad header line 'Bad Name: x'"),
    (b"Content-Length : 5", "bad header line 'Content-Length : 5'"),
])
def test_bad_header_lines_are_400(shared_runtime, line, message):
    rt = shared_runtime("tm_handlers.echo")
    status, headers, body = only(exchange(rt, b"GET /healthz HTTP/1.1\r\nX-A: 1\r\n" + line
                                          + b"\r\n\r\n"))
    assert status == 400 and headers["connection"] == "close"
    assert json.loads(body) == {"error": "bad_request", "details": {"message": message}}


def test_header_values_keep_inner_spaces_and_lose_outer_ones(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    req = invoke_request(BODY, b"Connection:   close  ", b"Transfer-Encoding:\t \t")
    # Transfer-Encoding "" is not chunked: refused as before, which shows the value was read
    status, _, body = only(exchange(rt, req))
    assert status == 400 and "unsupported Transfer-Encoding ''" in json.loads(body)["details"]["message"]


def test_header_count_limit(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    # with Host and Content-Length: 100 header lines
    hundred = [b"X-H%d: %d" % (i, i) for i in range(97)] + [b"Connection: close"]
    assert only(exchange(rt, invoke_request(BODY, *hundred)))[0] == 200
    status, headers, body = only(exchange(rt, invoke_request(BODY, b"X-One-More: 1", *hundred)))
    assert status == 431 and headers["connection"] == "close"
    assert json.loads(body)["details"]["message"] == "more than 100 header lines"


def test_header_line_length_limit(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    name = b"X-Long: "
    fits = name + b"v" * (65536 - len(name) - 2)  # 65536 bytes with its CRLF
    assert only(exchange(rt, invoke_request(BODY, fits, b"Connection: close")))[0] == 200
    status, _, body = only(exchange(rt, invoke_request(BODY, fits + b"v")))
    assert status == 431
    assert json.loads(body)["details"]["message"] == "header line longer than 65536 bytes"


def test_request_line_length_limit(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    status, headers, body = only(exchange(rt, b"GET /" + b"a" * 65536 + b" HTTP/1.1\r\n\r\n"))
    assert status == 414 and headers["connection"] == "close"
    assert json.loads(body)["details"]["message"] == "request line longer than 65536 bytes"


@pytest.mark.parametrize("line, status, message", [
    (b"GARBAGE", 400, "request line is not 'METHOD target HTTP/x.y'"),
    (b"GET / HTTP/1.1 extra", 400, "request line is not 'METHOD target HTTP/x.y'"),
    (b"GET / HTTX/1.1", 400, "bad HTTP version 'HTTX/1.1'"),
    (b"GET / HTTP/1.x", 400, "bad HTTP version 'HTTP/1.x'"),
    (b"POST /invoke", 400, "HTTP/0.9 request with method 'POST'"),
    (b"GET / HTTP/2.0", 505, "HTTP version 'HTTP/2.0' is not supported"),
])
def test_bad_request_lines(shared_runtime, line, status, message):
    rt = shared_runtime("tm_handlers.echo")
    got, headers, body = only(exchange(rt, line + b"\r\nHost: x\r\n\r\n"))
    assert got == status and headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "bad_request" if status < 500 else "server_error",
                                "details": {"message": message}}


def test_connection_closed_inside_the_head(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    status, _, body = only(exchange(rt, b"POST /invoke HTTP/1.1\r\nContent-Len"))
    assert status == 400
    assert json.loads(body)["details"]["message"] == "connection closed inside the request head"
    status, _, body = only(exchange(rt, b"GET /heal"))
    assert json.loads(body)["details"]["message"] == "connection closed inside the request line"
    # a client gone for good, before and inside the head: nothing to answer, nothing logged
    for data in (b"", b"POST /invoke HTTP/1.1\r\nHost"):
        with _connect(rt) as s:
            s.sendall(data)
    assert exchange(rt, b"\r\n") == b""  # an empty request line closes, as http.server did
    assert only(exchange(rt, HEALTHZ))[0] == 200
    assert "Traceback" not in rt.stderr()


def test_head_and_body_in_small_pieces(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    req = invoke_request(BODY, b"Connection: close")
    pieces = [req[i:i + 7] for i in range(0, len(req), 7)]
    status, _, body = only(exchange(rt, *pieces[:6], b"".join(pieces[6:-3]), *pieces[-3:],
                                    pause=0.01))
    assert status == 200 and _payload(body) == {"x": 1}


def test_pipelined_requests_in_one_send(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    second = json.dumps(envelope({"x": 2})).encode()
    raw = exchange(rt, invoke_request(BODY) + HEALTHZ + invoke_request(second, b"Connection: close"))
    answers = responses(raw)
    assert [a[0] for a in answers] == [200, 200, 200]
    assert _payload(answers[0][2]) == {"x": 1}
    assert json.loads(answers[1][2]) == {"status": "ready"}
    assert _payload(answers[2][2]) == {"x": 2}
    assert "connection" not in answers[0][1] and answers[2][1]["connection"] == "close"


def test_expect_100_continue(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    head, _, body = invoke_request(BODY, b"Expect: 100-continue", b"Connection: close") \
        .partition(b"\r\n\r\n")
    with _connect(rt) as s:
        s.sendall(head + b"\r\n\r\n")
        assert s.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        s.sendall(body)
        status, _, answer = only(_read_to_end(s))
    assert status == 200 and _payload(answer) == {"x": 1}


def test_http_1_0_closes_unless_kept_alive(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    raw = exchange(rt, b"GET /healthz HTTP/1.0\r\n\r\n" + HEALTHZ)
    status, headers, _ = only(raw)  # the second request was never read
    assert status == 200 and headers["connection"] == "close"
    raw = exchange(rt, b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                   b"GET /healthz HTTP/1.0\r\n\r\n")
    assert [(s, h.get("connection")) for s, h, _ in responses(raw)] == [(200, None), (200, "close")]


def test_head_method_gets_no_body(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    raw = exchange(rt, b"HEAD /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405 Method Not Allowed\r\n") and b"\r\nAllow: GET" in head
    assert b"Content-Length: " in head and rest == b""


def test_http_0_9_and_leading_slashes(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    assert exchange(rt, b"GET /healthz\r\n\r\n") == b'{"status":"ready"}'  # the body alone
    assert only(exchange(rt, b"GET //healthz?x=1 HTTP/1.1\r\nConnection: close\r\n\r\n"))[0] == 200


def test_keep_alive_connection_stays_open_between_requests(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    with _connect(rt) as s:
        for i in range(3):
            body = json.dumps(envelope({"i": i})).encode()
            s.sendall(invoke_request(body))
            data = b""
            while not data.endswith(b"}]}"):
                data += s.recv(65536)
            status, headers, answer = only(data)
            assert status == 200 and _payload(answer) == {"i": i}
            assert "connection" not in headers
