"""A connector killed (SIGKILL) in the middle of a write leaves the old value, never a torn one:
per connector family with a backend that runs here (kv on redis-server, objstore on moto, blob
on devkit's LocalGcsServer), a PUT
whose body is cut off by the kill, then the connector started again on the same socket. Read
back with the backend's own client and through the restarted connector."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile

import pytest

from conftest import UnixHTTPConnection
from state_backends import Connector, LocalBlob, Moto, Redis, require_connectors, require_redis

require_connectors()

OLD = b"old value, complete\n" * 100
BUCKET = "torn"
PART = 8 * 1024 * 1024  # the object-store connectors' multipart part size


def _get(socket_path, key) -> tuple[int, bytes]:
    conn = UnixHTTPConnection(socket_path, timeout=30)
    try:
        conn.request("GET", f"/keys/{key}")
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _put(socket_path, key, body: bytes) -> int:
    conn = UnixHTTPConnection(socket_path, timeout=30)
    try:
        conn.request("PUT", f"/keys/{key}", body=body, headers={"Content-Length": str(len(body))})
        return conn.getresponse().status
    finally:
        conn.close()


def _start_cut_off_write(socket_path, key, chunked: bool, sent: int) -> socket.socket:
    """Sends the head of a PUT and ``sent`` bytes of a body announced (or streamed) as larger."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(socket_path)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {2 * sent}"
    s.sendall(f"PUT /keys/{key} HTTP/1.1\r\nHost: localhost\r\n{framing}\r\n\r\n".encode())
    block = b"N" * (1024 * 1024)
    for _ in range(sent // len(block)):
        s.sendall(f"{len(block):x}\r\n".encode() + block + b"\r\n" if chunked else block)
    return s


@pytest.fixture
def workdir():
    d = tempfile.mkdtemp(prefix="tmtorn-", dir="/tmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def backend(request, workdir):
    """(connector kwargs, raw reader) for the requested family."""
    if request.param == "kv":
        redis = Redis(require_redis(workdir))
        yield {"env": {"KVSTORE_URL": redis.url}}, lambda key: redis.command("HGET", key, "data")
        redis.close()
    elif request.param == "blob":
        blob = LocalBlob(BUCKET)
        yield {"env": blob.connector_env()}, blob.media
        blob.stop()
    else:
        pytest.importorskip("boto3")
        moto = Moto()
        s3 = moto.client()
        s3.create_bucket(Bucket=BUCKET)
        yield ({"bucket": BUCKET, "endpoint": moto.endpoint},
               lambda key: s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())
        moto.stop()


@pytest.mark.parametrize("kind,backend,chunked,sent", [
    ("kv-buffered-cas", "kv", False, 4 * 1024 * 1024),
    ("objstore-buffered-lww", "objstore", False, 4 * 1024 * 1024),
    ("blob-buffered-cas", "blob", False, 4 * 1024 * 1024),
    # past one part: a part is uploaded before the kill, the multipart upload is never completed
    ("objstore-passthrough", "objstore", True, PART + 2 * 1024 * 1024),
], indirect=["backend"])
def test_connector_killed_mid_write_leaves_the_old_value(kind, backend, chunked, sent, workdir):
    kwargs, raw = backend
    path = os.path.join(workdir, "c.sock")
    connector = Connector(kind, path, **kwargs)
    try:
        assert _put(path, "doc", OLD) in (200, 201, 204)
        assert raw("doc") == OLD

        cut = _start_cut_off_write(path, "doc", chunked, sent)
        connector.kill()
        cut.close()
        assert raw("doc") == OLD, "the killed write changed the stored value"

        connector.start()  # same socket, as the orchestrator restarts the container
        assert _get(path, "doc") == (200, OLD)
        new = b"new value\n" * 10
        assert _put(path, "doc", new) in (200, 201, 204)
        assert raw("doc") == new
    finally:
        connector.stop()
