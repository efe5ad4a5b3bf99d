"""HTTP surface: /healthz, unknown paths and methods, chunked bodies, keep-alive."""

import json
import socket
import time

from conftest import envelope, wait_until


def test_healthz(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.request("GET", "/healthz")
    assert r.status == 200
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {"status": "ready"}


def test_unknown_path_404(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    for method, path in [("GET", "/"), ("GET", "/nope"), ("POST", "/invoke/x"),
                         ("DELETE", "/x"), ("PUT", "/healthz/x")]:
        r = rt.request(method, path)
        assert r.status == 404, (method, path)
        assert r.json() == {"error": "not_found"}


def test_wrong_method_on_invoke_405(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    r = rt.request("GET", "/invoke")
    assert r.status == 405
    assert r.headers["allow"] == "POST"
    r = rt.request("PATCH", "/invoke", body=b"{}")
    assert r.status == 405


def _raw(rt, data: bytes) -> bytes:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(rt.socket_path)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    chunks = []
    while True:
        b = s.recv(65536)
        if not b:
            break
        chunks.append(b)
    s.close()
    return b"".join(chunks)


def _split(resp: bytes):
    head, _, body = resp.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode(), body


def test_chunked_request_body(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    body = json.dumps(envelope({"chunked": True})).encode()
    pieces = [body[:10], body[10:25], body[25:]]
    chunked = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\nX-T: 1\r\n\r\n"
    req = (b"POST /invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
           b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked)
    status, head, resp_body = _split(_raw(rt, req))
    assert status == 200, head
    assert json.loads(resp_body)["frames"][0]["payload"] == {"chunked": True}


def test_chunked_via_http_client(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    conn = rt.connection()
    body = json.dumps(envelope({"gen": 1})).encode()
    conn.request("POST", "/invoke", body=iter([body[:5], body[5:]]),
                 headers={"Content-Type": "application/json"}, encode_chunked=True)
    resp = conn.getresponse()
    assert resp.status == 200
    assert json.loads(resp.read())["frames"][0]["payload"] == {"gen": 1}
    conn.close()


def test_bad_chunked_body_is_400(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    req = (b"POST /invoke HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"zz\r\nabc\r\n0\r\n\r\n")
    status, head, body = _split(_raw(rt, req))
    assert status == 400
    assert json.loads(body)["error"] == "msg_parsing_error"


def test_keep_alive_json_responses(shared_runtime):
    rt = shared_runtime("tm_handlers.echo")
    conn = rt.connection()
    try:
        socks = set()
        for i, (method, path, body) in enumerate([
            ("POST", "/invoke", json.dumps(envelope({"i": 0}))),
            ("GET", "/healthz", None),
            ("POST", "/invoke", b"{broken"),
            ("GET", "/missing", None),
            ("POST", "/invoke", json.dumps(envelope({"i": 4}))),
        ]):
            conn.request(method, path, body=body)
            resp = conn.getresponse()
            assert resp.getheader("Content-Length") is not None
            data = resp.read()
            socks.add(id(conn.sock))
            if i == 4:
                assert json.loads(data)["frames"][0]["payload"] == {"i": 4}
        assert len(socks) == 1  # one connection served all five requests
    finally:
        conn.close()


def test_concurrent_connections(shared_runtime):
    import concurrent.futures as cf
    rt = shared_runtime("tm_handlers.echo")
    with cf.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: rt.invoke(envelope({"i": i})), range(40)))
    assert [r.json()["frames"][0]["payload"]["i"] for r in results] == list(range(40))


def test_an_answer_to_a_caller_who_left_is_dropped_with_one_line(start_runtime, tmp_path):
    """The sidecar stops waiting for a canceled task's handler: its answer goes nowhere, quietly."""
    rt = start_runtime("tm_handlers.wait_gate")
    gate = tmp_path / "gate"
    body = json.dumps(envelope({"gate": str(gate)}, id_="left-1")).encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(rt.socket_path)
    sock.sendall(b"POST /invoke HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    sock.close()
    gate.write_text("open")
    wait_until(lambda: "invoke id=left-1: the caller left" in rt.stderr(), what="the dropped answer")
    assert "Traceback" not in rt.stderr()
    assert rt.invoke(envelope({"gate": str(gate)}, id_="next-1")).status == 200


def test_one_connection_per_message_is_served_by_a_reused_worker(shared_runtime):
    """The sidecar opens a connection per message; the runtime does not start a thread for each."""
    rt = shared_runtime("tm_handlers.thread_name")
    names = set()
    for i in range(20):
        # as the sidecar asks: the server closes each connection after its answer. Read up to
        # that close, by which time the thread that served counts itself free again (a client
        # that leaves after Content-Length may come back while that thread still writes its log
        # line, and then meets a third thread, more under a busy machine).
        body = json.dumps(envelope({"i": i})).encode()
        status, _, answer = _split(_raw(rt, b"POST /invoke HTTP/1.1\r\nConnection: close\r\n"
                                        + b"Content-Length: %d\r\n\r\n" % len(body) + body))
        assert status == 200
        names.add(json.loads(answer)["frames"][0]["payload"]["thread"])
    # one thread serves, one waits in accept(); a thread per connection would have been twenty
    assert len(names) <= 2, names


def test_acceptors_start_a_thread_only_when_none_is_left_waiting(tmp_path):
    import threading

    from taskmesh_runtime.server import Acceptors

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "acceptors.sock"))
    listener.listen(16)
    release = threading.Event()
    served = []

    def serve(conn):
        word = conn.recv(64).decode()
        served.append(word)
        if word.startswith("hold"):
            release.wait(10)
        if word == "raise":
            raise SystemExit("a connection that ends its thread's work badly")
        conn.sendall(b"ok")

    def call(word):
        """The answer, read up to the close (b"" for none): by then the thread counts as waiting."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(str(tmp_path / "acceptors.sock"))
            s.sendall(word.encode())
            answer = b""
            while data := s.recv(64):
                answer += data
            return answer

    acceptors = Acceptors(listener, serve)
    acceptors.start()
    try:
        # one after the other: the thread serving each started one other to wait in accept()
        assert [call(f"seq-{i}") for i in range(5)] == [b"ok"] * 5
        assert acceptors.started() == 2
        assert call("raise") == b""  # the thread survives it
        assert call("after-raise") == b"ok"
        assert acceptors.started() == 2
        # three at once: each is served while the others wait, and one thread still waits
        holds = [threading.Thread(target=call, args=(f"hold-{i}",)) for i in range(3)]
        for t in holds:
            t.start()
        wait_until(lambda: sum(w.startswith("hold") for w in served) == 3, what="three served")
        assert acceptors.started() == 4
        release.set()
        for t in holds:
            t.join(10)
        assert [call(f"again-{i}") for i in range(3)] == [b"ok"] * 3
        assert acceptors.started() == 4
    finally:
        release.set()
        acceptors.close()
        listener.close()


def test_connections_held_by_a_handler_do_not_hold_up_others(start_runtime, tmp_path):
    """Four calls blocked in the handler at once, and still a fifth is answered at once."""
    import concurrent.futures as cf
    rt = start_runtime("tm_handlers.wait_gate")
    gate = tmp_path / "gate"
    with cf.ThreadPoolExecutor(4) as pool:
        held = [pool.submit(rt.invoke, envelope({"gate": str(gate), "i": i})) for i in range(4)]
        time.sleep(0.3)  # time for the four to be inside the handler
        free = rt.invoke(envelope({"gate": str(tmp_path)}))  # a gate that is already open
        assert free.status == 200
        assert not any(f.done() for f in held)
        gate.write_text("open")
        assert [f.result().json()["frames"][0]["payload"]["i"] for f in held] == [0, 1, 2, 3]
