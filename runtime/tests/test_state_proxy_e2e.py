"""End to end: the hooks against the real Java connectors (state-connectors module) on a real S3
server (moto), read back with the backend's own client (boto3)."""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile

import pytest

from conftest import envelope
from state_backends import Connector, Moto, require_connectors
from taskmesh_runtime.state_proxy import StateProxy, parse_mounts

pytest.importorskip("boto3")
require_connectors()

BUCKET = "e2e"
ROOT = "/tm-state-e2e"


@pytest.fixture(scope="module")
def backend():
    moto = Moto()
    try:
        s3 = moto.client()
        s3.create_bucket(Bucket=BUCKET)
        yield moto.endpoint, s3
    finally:
        moto.stop()


@pytest.fixture(scope="module")
def connectors(backend):
    endpoint, _ = backend
    socket_dir = tempfile.mkdtemp(prefix="tmsp-e2e-", dir="/tmp")
    started = []
    try:
        for name, kind in (("cas", "objstore-buffered-cas"), ("stream", "objstore-passthrough")):
            started.append(Connector(kind, os.path.join(socket_dir, f"{name}.sock"), BUCKET, endpoint,
                                     prefix=f"{name}/"))
        yield socket_dir
    finally:
        for connector in started:
            connector.stop()
        shutil.rmtree(socket_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def proxy(connectors):
    p = StateProxy(parse_mounts(f"cas:{ROOT}/cas:write=buffered;stream:{ROOT}/stream:write=passthrough", connectors))
    p.install()
    yield
    p.uninstall()
    assert not os.path.exists(ROOT)


def _raw(s3, key: str) -> bytes:
    return s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def test_buffered_files_land_in_the_bucket(proxy, backend):
    _, s3 = backend
    with open(f"{ROOT}/cas/docs/a.txt", "w") as f:
        f.write("written through open()")
    assert _raw(s3, "cas/docs/a.txt") == b"written through open()"
    s3.put_object(Bucket=BUCKET, Key="cas/docs/sub/b.txt", Body=b"from boto3")
    assert os.listdir(f"{ROOT}/cas/docs") == ["a.txt", "sub"]
    assert pathlib.Path(f"{ROOT}/cas/docs/sub/b.txt").read_text() == "from boto3"
    assert os.path.getsize(f"{ROOT}/cas/docs/a.txt") == len("written through open()")
    assert os.path.isdir(f"{ROOT}/cas/docs/sub")
    etag = s3.head_object(Bucket=BUCKET, Key="cas/docs/a.txt")["ETag"]
    assert os.getxattr(f"{ROOT}/cas/docs/a.txt", "user.svc.etag").decode() == etag
    assert "user.svc.presigned_url" in os.listxattr(f"{ROOT}/cas/docs/a.txt")
    os.setxattr(f"{ROOT}/cas/docs/a.txt", "user.svc.content_type", b"text/plain")
    assert s3.head_object(Bucket=BUCKET, Key="cas/docs/a.txt")["ContentType"] == "text/plain"
    os.remove(f"{ROOT}/cas/docs/a.txt")
    with pytest.raises(FileNotFoundError):
        open(f"{ROOT}/cas/docs/a.txt")


def test_cas_conflict_is_file_exists_error(proxy, backend):
    _, s3 = backend
    path = f"{ROOT}/cas/counter"
    with open(path, "x") as f:
        f.write("1")
    with pytest.raises(FileExistsError):
        with open(path, "x") as f:
            f.write("again")
    with open(path) as f:
        value = int(f.read())
    s3.put_object(Bucket=BUCKET, Key="cas/counter", Body=b"41")
    with pytest.raises(FileExistsError):
        with open(path, "w") as f:
            f.write(str(value + 1))
    with open(path) as f:
        value = int(f.read())
    with open(path, "w") as f:
        f.write(str(value + 1))
    assert _raw(s3, "cas/counter") == b"42"


def test_passthrough_streams_large_objects(proxy, backend):
    _, s3 = backend
    block = os.urandom(1024 * 1024)
    with open(f"{ROOT}/stream/big.bin", "wb") as f:
        for _ in range(10):  # 10 MiB in 1 MiB chunks: a multipart upload on the connector side
            f.write(block)
    assert s3.head_object(Bucket=BUCKET, Key="stream/big.bin")["ContentLength"] == 10 * len(block)
    with open(f"{ROOT}/stream/big.bin", "rb") as f:
        for _ in range(10):
            assert f.read(len(block)) == block
        assert f.read() == b""


def test_runtime_handler_counts_hits_in_the_bucket(start_runtime, connectors, backend):
    _, s3 = backend
    rt = start_runtime("tm_state.handle", env={
        "SVC_STATE_PROXY_MOUNTS": f"cas:{ROOT}/rt:write=buffered",
        "SVC_STATE_SOCKET_DIR": connectors,
        "TM_STATE_DIR": f"{ROOT}/rt/app",
    })
    for expected in (1, 2, 3):
        resp = rt.invoke(envelope({"name": "e2e"}))
        assert resp.status == 200, resp
        assert resp.json()["frames"][0]["payload"]["hits"] == expected
    assert _raw(s3, "cas/app/hits/e2e") == b"3"
    assert _raw(s3, "cas/app/imported.txt") == b"hooks were installed before import"
