"""A small in-memory state connector for the hook tests: ``python3 fake_connector.py SOCKET``.

It serves the spec's connector protocol on a Unix socket and records how each request arrived
(method, path, Content-Length or chunked, chunk sizes, If-None-Match), readable at
``GET /_test/requests``. Keys under ``status/{code}/`` answer that status, so every row of the
status -> exception table can be exercised. The real connectors (state-connectors module) are
tested against real backends by their own tests and by test_state_proxy_e2e.py.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import socketserver
import sys
import threading
import urllib.parse

STORE: dict[str, bytes] = {}
META: dict[str, dict[str, str]] = {}
REQUESTS: list[dict] = []
LOCK = threading.Lock()
READ_ONLY = {"etag", "url"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def address_string(self):  # the peer of a Unix socket has no address
        return "unix"

    def log_message(self, *args):
        pass

    def _send(self, status, body=b"", headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if "Content-Length" not in (headers or {}):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status, obj):
        self._send(status, json.dumps(obj).encode(), {"Content-Type": "application/json"})

    def _body(self, record):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            record["chunked"] = True
            record["chunks"] = []
            data = bytearray()
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(data)
                chunk = self.rfile.read(size)
                self.rfile.readline()
                record["chunks"].append(len(chunk))
                data += chunk
        length = self.headers.get("Content-Length")
        record["content_length"] = None if length is None else int(length)
        return self.rfile.read(int(length or 0))

    def _route(self):
        parsed = urllib.parse.urlsplit(self.path)
        record = {"method": self.command, "path": parsed.path, "query": parsed.query,
                  "if_none_match": self.headers.get("If-None-Match")}
        body = self._body(record) if self.command in ("PUT", "POST") else b""
        if parsed.path != "/_test/requests":
            with LOCK:
                REQUESTS.append(record)
        query = dict(urllib.parse.parse_qsl(parsed.query, keep_blank_values=True))
        if parsed.path == "/healthz":
            return self._json(200, {"status": "ready"})
        if parsed.path == "/_test/requests":
            with LOCK:
                return self._json(200, REQUESTS)
        for kind in ("keys", "meta"):
            if parsed.path.startswith(f"/{kind}/"):
                key = urllib.parse.unquote(parsed.path[len(kind) + 2:])
                if key.startswith("status/"):
                    code = int(key.split("/")[1])
                    return self._send(code, f"injected {code}".encode())
                return getattr(self, f"_{kind}")(key, query, body)
        return self._send(404, b"unknown path")

    def _keys(self, key, query, body):
        with LOCK:
            if self.command == "GET" and key == "":
                prefix, delim = query.get("prefix", ""), query.get("delimiter", "")
                keys, prefixes = [], set()
                for k in sorted(STORE):
                    if not k.startswith(prefix):
                        continue
                    rest = k[len(prefix):]
                    if delim and delim in rest:
                        prefixes.add(prefix + rest.split(delim)[0] + delim)
                    else:
                        keys.append(k)
                return self._json(200, {"keys": keys, "prefixes": sorted(prefixes)})
            if self.command == "GET":
                if key not in STORE:
                    return self._send(404, b"no such key")
                return self._send(200, STORE[key], {"Content-Type": "application/octet-stream"})
            if self.command == "HEAD":
                if key in STORE:
                    return self._send(200, headers={"Content-Length": str(len(STORE[key])), "X-Is-File": "true"})
                if any(k.startswith(key + "/") for k in STORE):
                    return self._send(200, headers={"Content-Length": "0", "X-Is-File": "false"})
                return self._send(404)
            if self.command == "PUT":
                if self.headers.get("If-None-Match") == "*" and key in STORE:
                    return self._send(409, b"exists")
                STORE[key] = body
                META.setdefault(key, {})["content_type"] = self.headers.get("Content-Type", "")
                return self._send(204)
            if self.command == "DELETE":
                if STORE.pop(key, None) is None:
                    return self._send(404, b"no such key")
                return self._send(204)
        return self._send(405)

    def _meta(self, key, query, body):
        with LOCK:
            if key not in STORE:
                return self._send(404, b"no such key")
            attrs = {"etag": hashlib.md5(STORE[key]).hexdigest(), "url": f"mem://{key}", **META.get(key, {})}
            attr = query.get("attr")
            if self.command == "GET" and attr is None:
                return self._json(200, sorted(attrs))
            if self.command == "GET":
                if attr not in attrs:
                    return self._send(400, f"unknown attribute {attr}".encode())
                return self._json(200, {"value": attrs[attr]})
            if self.command == "PUT":
                if attr in READ_ONLY:
                    return self._send(403, f"{attr} is read-only".encode())
                if attr != "content_type":
                    return self._send(400, f"unknown attribute {attr}".encode())
                META.setdefault(key, {})[attr] = json.loads(body)["value"]
                return self._send(204)
        return self._send(405)

    do_GET = do_PUT = do_HEAD = do_DELETE = _route


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    server = Server(path, Handler)
    server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
