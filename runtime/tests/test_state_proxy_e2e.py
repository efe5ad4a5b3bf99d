"""End to end: the hooks against the real Java connectors (state-connectors module) on a real S3
server (moto), read back with the backend's own client (boto3)."""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile

import pytest

from conftest import envelope, wait_until
from taskmesh_runtime.state_proxy import StateProxy, parse_mounts

REPO = pathlib.Path(__file__).resolve().parents[2]
CONNECTORS = REPO / "state-connectors" / "target"
boto3 = pytest.importorskip("boto3")
if not (CONNECTORS / "classpath.txt").exists() or not (CONNECTORS / "classes").exists():
    pytest.skip("state-connectors is not built (mvn -o -q -pl state-connectors -am test-compile)",
                allow_module_level=True)

BUCKET = "e2e"
ROOT = "/tm-state-e2e"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepting(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def backend():
    port = _free_port()
    moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: _accepting(port), timeout=30, what="moto")
        endpoint = f"http://127.0.0.1:{port}"
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test")
        s3.create_bucket(Bucket=BUCKET)
        yield endpoint, s3
    finally:
        moto.terminate()
        moto.wait(10)


@pytest.fixture(scope="module")
def connectors(backend):
    endpoint, _ = backend
    socket_dir = tempfile.mkdtemp(prefix="tmsp-e2e-", dir="/tmp")
    classpath = f"{CONNECTORS / 'classes'}:{(CONNECTORS / 'classpath.txt').read_text().strip()}"
    procs = []
    for name, kind in (("cas", "objstore-buffered-cas"), ("stream", "objstore-passthrough")):
        env = {**os.environ, "CONNECTOR_SOCKET": os.path.join(socket_dir, f"{name}.sock"),
               "STATE_BUCKET": BUCKET, "STATE_PREFIX": f"{name}/", "OBJSTORE_ENDPOINT_URL": endpoint,
               "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
        procs.append(subprocess.Popen(["java", "-cp", classpath, "io.taskmesh.connectors.Main", kind], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        for name, proc in zip(("cas", "stream"), procs):
            path = os.path.join(socket_dir, f"{name}.sock")
            wait_until(lambda: proc.poll() is not None or os.path.exists(path), timeout=60, what="connector")
            assert proc.poll() is None, f"connector {name} exited with {proc.returncode}"
        yield socket_dir
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(20)
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
