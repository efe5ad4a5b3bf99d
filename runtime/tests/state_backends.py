"""Real state-proxy backends for tests and the benchmark: a moto S3 server and the Java
connectors of state-connectors/ (built by `mvn -o -q -pl state-connectors -am test-compile`)."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CONNECTORS = REPO / "state-connectors" / "target"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}


def connectors_built() -> bool:
    return (CONNECTORS / "classpath.txt").exists() and (CONNECTORS / "classes").exists()


def require_connectors():
    """Skips the calling test module when the Java connectors are not built, as when pytest runs
    alone; under Maven (TASKMESH_REQUIRE_CONNECTORS=1, set by runtime/pom.xml, which builds the
    connectors first) a missing build fails instead, so these tests never skip in CI."""
    import pytest  # the benchmark imports this module without pytest's machinery

    if connectors_built():
        return
    message = "state-connectors is not built (mvn -o -q -pl state-connectors -am test-compile)"
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
    """One connector process (``io.taskmesh.connectors.Main <type>``) on ``socket_path``."""

    def __init__(self, kind: str, socket_path: str, bucket: str, endpoint: str, prefix: str = "",
                 jvm_options: tuple = ()):
        classpath = f"{CONNECTORS / 'classes'}:{(CONNECTORS / 'classpath.txt').read_text().strip()}"
        env = {**os.environ, **CREDENTIALS, "CONNECTOR_SOCKET": socket_path, "STATE_BUCKET": bucket,
               "STATE_PREFIX": prefix, "OBJSTORE_ENDPOINT_URL": endpoint}
        if os.path.exists(socket_path):
            os.unlink(socket_path)
        self.socket_path = socket_path
        self.proc = subprocess.Popen(["java", *jvm_options, "-cp", classpath, "io.taskmesh.connectors.Main", kind],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: self.proc.poll() is not None or self._accepting(), 60, f"connector {kind}")
        assert self.proc.poll() is None, f"connector {kind} exited with {self.proc.returncode}"

    def _accepting(self) -> bool:
        if not os.path.exists(self.socket_path):
            return False
        with socket.socket(socket.AF_UNIX) as s:
            return s.connect_ex(self.socket_path) == 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)
