"""A runtime that is NOT taskmesh_runtime: written from the /invoke protocol alone (the spec's
table plus the event stream documented in docs/internals/runtime-protocol.md), with nothing but the standard
library. It proves the sidecar relies on the wire format only. Deliberate differences from
taskmesh_runtime: HTTP/1.0-style close-delimited bodies, chunked JSON bodies, CRLF event lines,
an unknown SSE event and SSE comments the sidecar must skip.

usage: python3 foreign_runtime.py <socket_dir>   (socket svc-runtime.sock, ready file runtime-ready)
Behaviour is chosen by payload["op"]: upper | fanout | none | fail | bad_request | stream | chunked | close.
Each connection appends "<requests served on it>" to <socket_dir>/connections.log.
"""
import json
import os
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler


def shifted(route, actor_ran_next=None):
    nxt = list(route.get("next", []))
    prev = list(route.get("prev", [])) + ([route["curr"]] if route.get("curr") else [])
    return {"prev": prev, "curr": nxt[0] if nxt else "", "next": nxt[1:]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # the Unix-socket client address is not a tuple
        sys.stderr.write("foreign: " + (fmt % args) + "\n")

    def handle(self):
        self.served = 0
        super().handle()
        with open(os.path.join(self.server.dir, "connections.log"), "a") as f:
            f.write(f"{self.served}\n")

    def send_json(self, status, obj, chunked=False, close_delimited=False):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif not close_delimited:
            self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if chunked:
            for i in range(0, len(data), 7):
                part = data[i:i + 7]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.wfile.write(data)
        self.close_connection = True

    def do_POST(self):
        self.served += 1
        if self.path != "/invoke":
            self.send_json(404, {"error": "not_found"})
            return
        body = self.rfile.read(int(self.headers["Content-Length"]))
        try:
            env = json.loads(body)
            route, payload, headers = env["route"], env["payload"], env.get("headers", {})
        except (ValueError, KeyError) as exc:
            self.send_json(400, {"error": "msg_parsing_error", "details": {"message": str(exc)}})
            return
        op = payload.get("op") if isinstance(payload, dict) else None
        frame = lambda p: {"payload": p, "route": shifted(route), "headers": headers}
        if op == "upper":
            self.send_json(200, {"frames": [frame({**payload, "text": payload["text"].upper()})]})
        elif op == "chunked":
            self.send_json(200, {"frames": [frame({**payload, "chunked": True})]}, chunked=True)
        elif op == "close":
            self.send_json(200, {"frames": [frame({**payload, "closed": True})]}, close_delimited=True)
        elif op == "fanout":
            self.send_json(200, {"frames": [frame({"n": i}) for i in range(2)]})
        elif op == "none":
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif op == "fail":
            self.send_json(500, {"error": "processing_error", "details": {
                "message": "foreign failure", "type": "ForeignError", "mro": ["ForeignError", "Exception"],
                "traceback": "none"}})
        elif op == "bad_request":
            self.send_json(400, {"error": "msg_parsing_error", "details": {"message": "foreign says no"}})
        elif op == "stream":
            self.stream(payload, frame)
        else:
            self.send_json(500, {"error": "processing_error", "details": {"message": f"unknown op {op}",
                                                                           "type": "KeyError", "mro": []}})

    def stream(self, payload, frame):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def event(name, obj):
            self.wfile.write(f"event: {name}\r\ndata: {json.dumps(obj)}\r\n\r\n".encode())
            self.wfile.flush()

        self.wfile.write(b": a comment line\r\n\r\n")
        for w in payload["words"]:
            event("upstream", {"payload": {"partial": True, "text": w}})
        event("progress", {"ignored": True})  # not in the protocol: a client skips unknown events
        # hold the stream open until the test saw the FLY events at the gateway: they must not wait for the end
        release = payload.get("release_file")
        deadline = time.monotonic() + 30
        while release and not os.path.exists(release) and time.monotonic() < deadline:
            time.sleep(0.02)
        event("downstream", frame({**payload, "released": bool(release and os.path.exists(release))}))
        event("done", {})


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    sock = os.path.join(d, "svc-runtime.sock")
    for p in (sock, os.path.join(d, "runtime-ready")):
        if os.path.exists(p):
            os.unlink(p)
    srv = Server(sock, Handler)
    srv.dir = d
    with open(os.path.join(d, "runtime-ready.tmp"), "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.path.join(d, "runtime-ready.tmp"), os.path.join(d, "runtime-ready"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
