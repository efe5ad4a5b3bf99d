"""Real state-proxy backends for tests and the benchmark: a moto S3 server, a redis-server and the
Java connectors of state-connectors/ (built by `mvn -o -q -pl state-connectors -am test-compile`)."""

from __future__ import annotations

import contextlib
import os
import pathlib
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

REPO = pathlib.Path(__file__).resolve().parents[2]
CONNECTORS = REPO / "state-connectors" / "target"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
# as ./taskmesh dev starts connectors (cli's ConnectorProcess) and as the README recommends: with
# the default JVM flags a connector spends thousands of requests in C2 compilation and parallel GC
# threads, which the benchmark measured as connector cost
CONNECTOR_JVM_OPTIONS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


def connectors_built() -> bool:
    return (CONNECTORS / "classpath.txt").exists() and (CONNECTORS / "classes").exists()


def require_connectors():
    """Skips the calling test module when the Java connectors are not built, as when pytest runs
    alone; under Maven (TASKMESH_REQUIRE_CONNECTORS=1, set by runtime/pom.xml, which builds the
    connectors first) a missing build fails instead, so these tests never skip in CI."""
    if not connectors_built():
        _skip_or_fail("state-connectors is not built (mvn -o -q -pl state-connectors -am test-compile)")


def _skip_or_fail(message: str):
    """Skips the calling test (or module), or fails it under Maven (TASKMESH_REQUIRE_CONNECTORS=1)."""
    import pytest  # the benchmark imports this module without pytest's machinery

    if os.environ.get("TASKMESH_REQUIRE_CONNECTORS") == "1":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


def _wait(cond, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepting(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Moto:
    """``python3 -m moto.server`` on a local port; objects live in its memory."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: self.proc.poll() is not None or _accepting(self.port), 30, "moto")
        assert self.proc.poll() is None, f"moto exited with {self.proc.returncode}"

    def client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id="test", aws_secret_access_key="test")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class Connector:
    """One connector process (``io.taskmesh.connectors.Main <type>``) on ``socket_path``. The
    object-store variables come from ``bucket``/``endpoint``; ``env`` adds or overrides any
    (e.g. ``KVSTORE_URL`` for kv-buffered-cas)."""

    def __init__(self, kind: str, socket_path: str, bucket: str | None = None, endpoint: str | None = None,
                 prefix: str = "", jvm_options: tuple = CONNECTOR_JVM_OPTIONS, env: dict | None = None):
        classpath = f"{CONNECTORS / 'classes'}:{(CONNECTORS / 'classpath.txt').read_text().strip()}"
        full = {**os.environ, **CREDENTIALS, "CONNECTOR_SOCKET": socket_path, "STATE_PREFIX": prefix}
        if bucket:
            full["STATE_BUCKET"] = bucket
        if endpoint:
            full["OBJSTORE_ENDPOINT_URL"] = endpoint
        full.update(env or {})
        if os.path.exists(socket_path):
            os.unlink(socket_path)
        self.kind = kind
        self.socket_path = socket_path
        self._command = ["java", *jvm_options, "-cp", classpath, "io.taskmesh.connectors.Main", kind]
        self._env = full
        self.start()

    def start(self):
        """Starts the process (again, after ``kill``/``stop``) on the same socket."""
        self.proc = subprocess.Popen(self._command, env=self._env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: self.proc.poll() is not None or self._accepting(), 60, f"connector {self.kind}")
        assert self.proc.poll() is None, f"connector {self.kind} exited with {self.proc.returncode}"
        return self

    def _accepting(self) -> bool:
        if not os.path.exists(self.socket_path):
            return False
        with socket.socket(socket.AF_UNIX) as s:
            return s.connect_ex(self.socket_path) == 0

    def kill(self):
        """SIGKILL, as a crashed container: no shutdown hook runs."""
        self.proc.kill()
        self.proc.wait(20)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)


@contextlib.contextmanager
def two_pods(kind: str, **connector_kwargs):
    """Socket directories of two pods, each with its own ``kind`` connector on ``counter.sock``
    (``connector_kwargs`` go to every Connector)."""
    dirs = [tempfile.mkdtemp(prefix="tmpod-", dir="/tmp") for _ in range(2)]
    connectors = []
    try:
        for d in dirs:
            connectors.append(Connector(kind, f"{d}/counter.sock", **connector_kwargs))
        yield dirs
    finally:
        for c in connectors:
            c.stop()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)


def counter_runtime(start_runtime, socket_dir):
    """A runtime with tm_cas.increment on the pod's buffered ``counter`` mount, key ``shared``."""
    return start_runtime("tm_cas.increment", env={
        "SVC_STATE_PROXY_MOUNTS": "counter:/state/counter:write=buffered",
        "SVC_STATE_SOCKET_DIR": socket_dir,
        "TM_COUNTER": "/state/counter/shared",
    })


def race_increments(runtimes, per_runtime: int, join_timeout: float) -> tuple[list[dict], list]:
    """Every runtime invokes its increment ``per_runtime`` times, all starting together:
    (the acknowledged payloads, the non-200 responses)."""
    from conftest import envelope

    acknowledged: list[dict] = []
    failures: list = []
    lock = threading.Lock()
    start = threading.Barrier(len(runtimes))

    def drive(rt):
        start.wait()
        for i in range(per_runtime):
            resp = rt.invoke(envelope({"i": i}))
            with lock:
                if resp.status == 200:
                    acknowledged.append(resp.json()["frames"][0]["payload"])
                else:
                    failures.append(resp)

    threads = [threading.Thread(target=drive, args=(rt,)) for rt in runtimes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(join_timeout)
    return acknowledged, failures


class LocalBlob:
    """devkit's LocalGcsServer (the in-memory JSON API blob store the blob connectors are
    tested against) as a child JVM on a local port; ``stop()``/``start()`` keep the port (and
    start empty, with the bucket made again)."""

    def __init__(self, bucket: str, port: int | None = None):
        self.bucket = bucket
        self.port = port or free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.start()

    def start(self):
        # devkit (where the server lives) is one of state-connectors' test dependencies
        classpath = (CONNECTORS / "test-classpath.txt").read_text().strip()
        self.proc = subprocess.Popen(["java", *CONNECTOR_JVM_OPTIONS, "-cp", classpath,
                                      "io.taskmesh.devkit.LocalGcsServer", str(self.port), self.bucket],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: self.proc.poll() is not None or _accepting(self.port), 60, "LocalGcsServer")
        assert self.proc.poll() is None, f"LocalGcsServer exited with {self.proc.returncode}"
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)

    def connector_env(self) -> dict:
        return {"STATE_BUCKET": self.bucket, "STORAGE_EMULATOR_HOST": self.endpoint, "CLOUD_PROJECT": "local"}

    def media(self, name: str) -> bytes:
        """The object's bytes over the JSON API itself (no connector in between)."""
        import urllib.parse
        import urllib.request

        url = (f"{self.endpoint}/storage/v1/b/{self.bucket}/o/{urllib.parse.quote(name, safe='')}"
               "?alt=media")
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read()


# --- Redis ------------------------------------------------------------------------------------

_BUNDLED_REDIS = {("Linux", "x86_64"): "redis-server-6.2.6-v5-linux-amd64",
                  ("Linux", "aarch64"): "redis-server-6.2.7-linux-arm64",
                  ("Darwin", "x86_64"): "redis-server-6.2.6-v5-darwin-amd64",
                  ("Darwin", "arm64"): "redis-server-6.2.6-v5-darwin-arm64"}


def redis_binary(workdir: str) -> str | None:
    """As the Java ITs find it: ``TASKMESH_REDIS_SERVER``, else the binary that the test
    dependency embedded-redis carries (its jar named in state-connectors' test class path), else
    ``redis-server`` on the PATH; None when there is none."""
    override = os.environ.get("TASKMESH_REDIS_SERVER", "").strip()
    if override:
        return override
    entry = _BUNDLED_REDIS.get((platform.system(), platform.machine()))
    listing = CONNECTORS / "test-classpath.txt"
    if entry and listing.exists():
        jars = [j for j in listing.read_text().strip().split(":") if "embedded-redis" in j]
        if jars:
            target = os.path.join(workdir, "redis-server")
            with zipfile.ZipFile(jars[0]) as z, z.open(entry) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(target, 0o700)
            return target
    return shutil.which("redis-server")


def require_redis(workdir: str) -> str:
    """The binary, or skip (fail under Maven, like require_connectors)."""
    binary = redis_binary(workdir)
    if not binary:
        _skip_or_fail("no redis-server: set TASKMESH_REDIS_SERVER or build state-connectors (embedded-redis)")
    return binary


class Redis:
    """``redis-server`` on a local port without persistence; ``stop()``/``start()`` keep the port."""

    def __init__(self, binary: str, port: int | None = None):
        self.binary = binary
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        self.dir = tempfile.mkdtemp(prefix="tmredis-", dir="/tmp")
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", self.dir],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: self.proc.poll() is not None or _accepting(self.port), 30, "redis-server")
        assert self.proc.poll() is None, f"redis-server exited with {self.proc.returncode}"
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def command(self, *args: str) -> bytes | int | None:
        """One command in the Redis protocol on a fresh connection (the test's own reader, so
        what it sees does not come through a connector)."""
        request = f"*{len(args)}\r\n".encode() + b"".join(
            f"${len(a.encode())}\r\n".encode() + a.encode() + b"\r\n" for a in args)
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(request)
            reader = s.makefile("rb")
            head = reader.readline()
            kind, rest = head[:1], head[1:].rstrip(b"\r\n")
            if kind == b"$":
                size = int(rest)
                return None if size < 0 else reader.read(size + 2)[:size]
            if kind == b":":
                return int(rest)
            if kind == b"-":
                raise AssertionError(f"redis error: {rest.decode()}")
            return rest
