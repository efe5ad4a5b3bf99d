"""Emulates the reference runtime's wire format (the open-source project our runtime protocol
comes from), written for this test from its documented behaviour, standard library only. It is
not that project's code: it only reproduces what goes over the socket, byte for byte where it
matters to a client:

* a single-threaded HTTP/1.0 server on <socket_dir>/asya-runtime.sock, ready file
  <socket_dir>/runtime-ready holding "ready", written once the socket listens;
* a generator answers with an event stream whatever the request's Accept header says:
  "event: upstream" with {"payload": <FLY object>}, "event: downstream" with one frame,
  "event: error" with {"error": "processing_error", "details": {...}} and always, last,
  "event: done" with {}; data is json.dumps with its default separators (", " and ": ");
* a frame is {"payload", "route"} plus "headers" only when non-empty;
* a plain function answers {"frames": [...]} or 204.

usage: python3 reference_wire_runtime.py <socket_dir>
The "handler" is chosen by payload["op"]: plain | fanout | fly | reroute | empty | error_after_frame.
"""
import json
import os
import socketserver
import sys
import traceback
from http.server import BaseHTTPRequestHandler


def qualified(cls):
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def error_body(exc):
    parents = [qualified(c) for c in type(exc).__mro__[1:] if c not in (object, BaseException)]
    return {"error": "processing_error", "details": {
        "message": str(exc), "type": qualified(type(exc)), "mro": parents,
        "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))}}


class Envelope:
    """What a handler may read and change while it runs: the next actors and the headers."""

    def __init__(self, doc):
        self.route = doc["route"]
        self.next = list(self.route["next"])
        self.headers = dict(doc.get("headers") or {})

    def frame(self, payload):
        nxt = self.next
        out = {"payload": payload, "route": {
            "prev": [*self.route["prev"], self.route["curr"]],
            "curr": nxt[0] if nxt else "", "next": nxt[1:]}}
        if self.headers:
            out["headers"] = self.headers
        return out


# Handlers as generators of ("upstream"|"downstream", obj) pairs; "plain" is a function.
def fanout(payload, env):
    for i in range(3):
        yield "downstream", env.frame({"child": i})


def fly(payload, env):
    for word in payload["words"]:
        yield "upstream", {"partial": True, "text": word}
    yield "downstream", env.frame({"said": " ".join(payload["words"])})


def reroute(payload, env):
    env.next = list(payload["next"])  # what SET .route.next does on the reference runtime
    yield "downstream", env.frame({"rerouted": True})


def empty(payload, env):
    return
    yield  # pragma: no cover - makes this a generator


def error_after_frame(payload, env):
    yield "downstream", env.frame({"partial": "lost"})
    raise RuntimeError("failed after a frame")


GENERATORS = {f.__name__: f for f in (fanout, fly, reroute, empty, error_after_frame)}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):  # a Unix-socket peer has no address tuple
        sys.stderr.write("reference-wire: " + (fmt % args) + "\n")

    def address_string(self):
        return "unix"

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        doc = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        env = Envelope(doc)
        op = doc["payload"].get("op")
        if op == "plain":
            self.send_json(200, {"frames": [env.frame({"plain": True})]})
        elif op in GENERATORS:
            self.stream(GENERATORS[op](doc["payload"], env))
        else:
            self.send_json(500, error_body(KeyError(op)))

    def stream(self, gen):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def event(name, data):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        try:
            for kind, obj in gen:
                event(kind, {"payload": obj} if kind == "upstream" else obj)
        except Exception as exc:  # the reference reports the failure, then still ends with done
            event("error", error_body(exc))
        self.wfile.write(b"event: done\ndata: {}\n\n")
        self.wfile.flush()


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    sock = os.path.join(directory, "asya-runtime.sock")
    if os.path.exists(sock):
        os.unlink(sock)
    server = socketserver.UnixStreamServer(sock, Handler)
    with open(os.path.join(directory, "runtime-ready"), "w") as f:
        f.write("ready")
    server.serve_forever()


if __name__ == "__main__":
    main()
