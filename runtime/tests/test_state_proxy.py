"""State proxy hooks against a connector process (tests/fake_connector.py) on a real Unix socket."""

from __future__ import annotations

import errno
import io
import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

from conftest import UnixHTTPConnection, envelope, wait_until
from taskmesh_runtime.state_proxy import MountConfigError, StateProxy, parse_mounts

TESTS_DIR = pathlib.Path(__file__).resolve().parent
ROOT = "/tm-state-test"
BUF = f"{ROOT}/cache"
PASS = f"{ROOT}/stream"


class Connector:
    def __init__(self, socket_path: str):
        self.socket_path = socket_path
        self.proc = subprocess.Popen([sys.executable, str(TESTS_DIR / "fake_connector.py"), socket_path])
        wait_until(lambda: os.path.exists(socket_path), what=f"connector socket {socket_path}")

    def requests(self) -> list[dict]:
        conn = UnixHTTPConnection(self.socket_path)
        try:
            conn.request("GET", "/_test/requests")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    def last(self, method: str) -> dict:
        return [r for r in self.requests() if r["method"] == method][-1]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)


@pytest.fixture(scope="module")
def connectors():
    socket_dir = tempfile.mkdtemp(prefix="tmsp-", dir="/tmp")
    started = {name: Connector(os.path.join(socket_dir, f"{name}.sock")) for name in ("cache", "stream")}
    yield socket_dir, started
    for c in started.values():
        c.stop()
    shutil.rmtree(socket_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def proxy(connectors):
    socket_dir, started = connectors
    p = StateProxy(parse_mounts(f"cache:{BUF}:write=buffered;stream:{PASS}:write=passthrough", socket_dir))
    original_open, original_stat = open, os.stat
    p.install()
    assert open is not original_open and os.stat is not original_stat
    yield started
    p.uninstall()
    assert open is original_open and os.stat is original_stat  # hooks gone
    assert not os.path.exists(ROOT), "a mount path reached the local disk"


# --- open: buffered ---------------------------------------------------------------------------

def test_text_write_then_read_is_one_put_with_content_length(proxy):
    with open(f"{BUF}/a.txt", "w") as f:
        f.write("héllo\n")
        f.write("world")
    put = proxy["cache"].last("PUT")
    assert put["path"] == "/keys/a.txt"
    assert put["content_length"] == len("héllo\nworld".encode()) and "chunked" not in put
    with open(f"{BUF}/a.txt") as f:
        assert f.read() == "héllo\nworld"
    with open(f"{BUF}/a.txt", "rb") as f:
        assert f.read() == "héllo\nworld".encode()


def test_binary_roundtrip_and_nested_key(proxy):
    data = bytes(range(256)) * 10
    with open(f"{BUF}/deep/sub/blob.bin", "wb") as f:
        assert f.write(data) == len(data)
    assert proxy["cache"].last("PUT")["path"] == "/keys/deep/sub/blob.bin"
    with open(f"{BUF}/deep/sub/blob.bin", "rb") as f:
        assert f.read(10) == data[:10]
        assert f.read() == data[10:]


def test_relative_path_under_mount_resolves_to_key(proxy, monkeypatch):
    with open(f"{BUF}/rel.txt", "w") as f:
        f.write("r")
    monkeypatch.chdir("/")
    with open("tm-state-test/cache/x/../rel.txt") as f:
        assert f.read() == "r"


def test_buffered_seek_and_tell_before_close(proxy):
    with open(f"{BUF}/seek.bin", "wb") as f:
        f.write(b"0123456789")
        assert f.tell() == 10
        f.seek(2)
        f.write(b"AB")
        assert f.tell() == 4
    with open(f"{BUF}/seek.bin", "rb") as f:
        assert f.read() == b"01AB456789"
        f.seek(-3, io.SEEK_END)
        assert f.read() == b"789"


def test_write_mode_creates_empty_object_without_writes(proxy):
    open(f"{BUF}/empty.txt", "w").close()
    assert os.path.getsize(f"{BUF}/empty.txt") == 0


def test_spill_to_disk_above_4_mib_still_one_put(proxy):
    chunk = os.urandom(1024 * 1024)
    with open(f"{BUF}/big.bin", "wb") as f:
        for _ in range(5):
            f.write(chunk)
        assert f.spilled
    put = proxy["cache"].last("PUT")
    assert put["content_length"] == 5 * len(chunk)
    with open(f"{BUF}/big.bin", "rb") as f:
        assert f.read() == chunk * 5
    with open(f"{BUF}/small.bin", "wb") as f:
        f.write(chunk)
        assert not f.spilled


def test_exclusive_create_sends_if_none_match_and_conflicts(proxy):
    with open(f"{BUF}/once.txt", "x") as f:
        f.write("first")
    assert proxy["cache"].last("PUT")["if_none_match"] == "*"
    with pytest.raises(FileExistsError):
        with open(f"{BUF}/once.txt", "x") as f:
            f.write("second")
    with open(f"{BUF}/once.txt") as f:
        assert f.read() == "first"


def test_append_extends_existing_and_creates_missing(proxy):
    with open(f"{BUF}/log.txt", "w") as f:
        f.write("a\n")
    with open(f"{BUF}/log.txt", "a") as f:
        f.write("b\n")
    with open(f"{BUF}/log.txt", "ab") as f:
        f.seek(0)
        f.write(b"c\n")  # append mode writes at the end whatever the position
    with open(f"{BUF}/log.txt") as f:
        assert f.read() == "a\nb\nc\n"
    with open(f"{BUF}/newlog.txt", "a") as f:
        f.write("x")
    with open(f"{BUF}/newlog.txt") as f:
        assert f.read() == "x"


def test_read_write_modes(proxy):
    with open(f"{BUF}/rw.txt", "w+") as f:
        f.write("hello")
        f.seek(0)
        assert f.read() == "hello"
    with open(f"{BUF}/rw.txt", "r+b") as f:
        assert f.read(1) == b"h"
        f.seek(0)
        f.write(b"J")
    with open(f"{BUF}/rw.txt") as f:
        assert f.read() == "Jello"
    with pytest.raises(FileNotFoundError):
        open(f"{BUF}/missing-rw.txt", "r+")
    before = len(proxy["cache"].requests())
    with open(f"{BUF}/rw.txt", "r+") as f:
        f.read()
    assert all(r["method"] != "PUT" for r in proxy["cache"].requests()[before:]), "unchanged r+ must not PUT"


def test_read_only_and_write_only_objects_refuse_the_other_direction(proxy):
    with open(f"{BUF}/dir.txt", "w") as f:
        with pytest.raises(io.UnsupportedOperation):
            f.read()
    with open(f"{BUF}/dir.txt") as f:
        with pytest.raises(io.UnsupportedOperation):
            f.write("x")


def test_invalid_modes_and_directory_paths(proxy):
    with pytest.raises(ValueError):
        open(f"{BUF}/m.txt", "rw")
    with pytest.raises(IsADirectoryError):
        open(BUF, "w")
    with pytest.raises(ValueError):
        open(f"{BUF}/m.txt", "wb", encoding="utf-8")


def test_missing_key_read_raises_file_not_found(proxy):
    with pytest.raises(FileNotFoundError) as info:
        open(f"{BUF}/nope.txt")
    assert info.value.errno == errno.ENOENT and info.value.filename == f"{BUF}/nope.txt"


# --- open: passthrough ------------------------------------------------------------------------

def test_passthrough_write_sends_each_write_as_a_chunk(proxy):
    with open(f"{PASS}/s.bin", "wb") as f:
        f.write(b"abc")
        f.write(b"")
        f.write(b"defgh")
        with pytest.raises(io.UnsupportedOperation):
            f.seek(0)
        with pytest.raises((io.UnsupportedOperation, OSError)):
            f.tell()
    put = proxy["stream"].last("PUT")
    assert put["chunked"] and put["chunks"] == [3, 5]
    with open(f"{PASS}/s.bin", "rb") as f:
        assert f.read() == b"abcdefgh"
        with pytest.raises(io.UnsupportedOperation):
            f.seek(0)


def test_passthrough_text_and_large_streamed_read(proxy):
    with open(f"{PASS}/t.txt", "w", encoding="utf-8") as f:
        for i in range(1000):
            f.write(f"line {i}\n")
    with open(f"{PASS}/t.txt") as f:
        lines = list(f)
    assert len(lines) == 1000 and lines[-1] == "line 999\n"


def test_passthrough_exclusive_create(proxy):
    with open(f"{PASS}/x.bin", "xb") as f:
        f.write(b"1")
    assert proxy["stream"].last("PUT")["if_none_match"] == "*"
    with pytest.raises(FileExistsError):
        with open(f"{PASS}/x.bin", "xb") as f:
            f.write(b"2")


@pytest.mark.parametrize("mode", ["a", "ab", "r+", "w+b", "r+b"])
def test_passthrough_refuses_append_and_read_write(proxy, mode):
    with pytest.raises(io.UnsupportedOperation, match="passthrough"):
        open(f"{PASS}/refused.bin", mode)


# --- status -> exception ------------------------------------------------------------------------

@pytest.mark.parametrize("status, exc, err", [
    (400, ValueError, None),
    (403, PermissionError, errno.EACCES),
    (404, FileNotFoundError, errno.ENOENT),
    (409, FileExistsError, errno.EEXIST),
    (413, OSError, errno.EFBIG),
    (500, OSError, errno.EIO),
    (503, ConnectionError, None),
    (504, TimeoutError, errno.ETIMEDOUT),
])
@pytest.mark.parametrize("mount", [BUF, PASS])
def test_connector_status_maps_to_exception(proxy, status, exc, err, mount):
    with pytest.raises(exc) as info:
        with open(f"{mount}/status/{status}/k", "rb") as f:
            f.read()
    assert type(info.value) is exc or (status == 500 and isinstance(info.value, OSError))
    if err is not None:
        assert info.value.errno == err
    with pytest.raises(exc):
        with open(f"{mount}/status/{status}/k", "wb") as f:
            f.write(b"x")


def test_unreachable_connector_is_connection_error(connectors):
    p = StateProxy(parse_mounts("gone:/tm-state-gone", connectors[0]))
    p.install()
    try:
        with pytest.raises(ConnectionError):
            open("/tm-state-gone/k")
        with pytest.raises(ConnectionError):
            os.stat("/tm-state-gone/k")
    finally:
        p.uninstall()


# --- stat, os.path, pathlib, listdir, unlink, makedirs ------------------------------------------

def test_stat_is_the_spec_table(proxy):
    with open(f"{BUF}/st/f.bin", "wb") as f:
        f.write(b"12345")
    st = os.stat(f"{BUF}/st/f.bin")
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o644
    assert (st.st_size, st.st_ino, st.st_dev, st.st_nlink) == (5, 0, 0, 1)
    assert (st.st_uid, st.st_gid) == (os.getuid(), os.getgid())
    assert (st.st_atime, st.st_mtime, st.st_ctime) == (0, 0, 0)
    d = os.stat(f"{BUF}/st")
    assert stat.S_ISDIR(d.st_mode) and stat.S_IMODE(d.st_mode) == 0o755
    assert stat.S_ISDIR(os.stat(BUF).st_mode)
    with pytest.raises(FileNotFoundError):
        os.stat(f"{BUF}/st/none")


def test_os_path_helpers(proxy):
    with open(f"{BUF}/p/q.txt", "w") as f:
        f.write("abc")
    assert os.path.exists(f"{BUF}/p/q.txt") and os.path.isfile(f"{BUF}/p/q.txt")
    assert os.path.isdir(f"{BUF}/p") and not os.path.isfile(f"{BUF}/p")
    assert os.path.getsize(f"{BUF}/p/q.txt") == 3
    assert not os.path.exists(f"{BUF}/p/none.txt")


def test_pathlib_through_the_hooks(proxy):
    p = pathlib.Path(BUF) / "pl" / "data.txt"
    assert not p.exists()
    p.write_text("pathlib text")
    assert p.exists() and p.is_file()
    assert p.read_text() == "pathlib text"
    p.write_bytes(b"\x00\x01")
    assert p.read_bytes() == b"\x00\x01"
    with p.open("rb") as f:
        assert f.read() == b"\x00\x01"


def test_listdir_simulates_directories(proxy):
    for key in ("ls/a.txt", "ls/b.txt", "ls/sub/c.txt", "ls/sub/deeper/d.txt"):
        with open(f"{BUF}/{key}", "w") as f:
            f.write("x")
    assert os.listdir(f"{BUF}/ls") == ["a.txt", "b.txt", "sub"]
    assert os.listdir(f"{BUF}/ls/sub") == ["c.txt", "deeper"]
    assert "ls" in os.listdir(BUF)
    assert os.listdir(os.fsencode(f"{BUF}/ls/sub")) == [b"c.txt", b"deeper"]
    req = proxy["cache"].last("GET")
    assert req["path"] == "/keys/" and "delimiter=%2F" in req["query"]


def test_unlink_and_remove(proxy):
    for name in ("u1", "u2"):
        with open(f"{BUF}/{name}", "w") as f:
            f.write("x")
    os.unlink(f"{BUF}/u1")
    os.remove(f"{BUF}/u2")
    assert not os.path.exists(f"{BUF}/u1") and not os.path.exists(f"{BUF}/u2")
    with pytest.raises(FileNotFoundError):
        os.remove(f"{BUF}/u1")
    pathlib.Path(f"{BUF}/u3").write_text("x")
    pathlib.Path(f"{BUF}/u3").unlink()
    assert not pathlib.Path(f"{BUF}/u3").exists()


def test_makedirs_is_a_no_op_on_mounts(proxy):
    before = len(proxy["cache"].requests())
    os.makedirs(f"{BUF}/made/deep", exist_ok=True)
    os.makedirs(f"{BUF}/made/deep")  # no FileExistsError: nothing exists to collide with
    assert len(proxy["cache"].requests()) == before
    assert not os.path.exists(ROOT)


# --- extended attributes ------------------------------------------------------------------------

def test_xattrs_prefix_stripped_and_restored(proxy):
    path = f"{BUF}/x/attr.bin"
    with open(path, "wb") as f:
        f.write(b"data")
    names = os.listxattr(path)
    assert "user.svc.etag" in names and "user.svc.url" in names
    assert os.getxattr(path, "user.svc.url") == b"mem://x/attr.bin"
    assert proxy["cache"].last("GET")["query"] == "attr=url"
    os.setxattr(path, "user.svc.content_type", b"text/plain")
    assert os.getxattr(path, b"user.svc.content_type") == b"text/plain"
    with pytest.raises(PermissionError):
        os.setxattr(path, "user.svc.etag", b"x")
    with pytest.raises(OSError) as info:
        os.getxattr(path, "user.other")
    assert info.value.errno == errno.ENOTSUP
    with pytest.raises(FileNotFoundError):
        os.getxattr(f"{BUF}/x/none", "user.svc.etag")


# --- paths outside mounts -----------------------------------------------------------------------

def test_paths_outside_mounts_use_the_originals(proxy, tmp_path):
    local = tmp_path / "local.txt"
    with open(local, "w") as f:
        f.write("local")
    assert local.read_text() == "local"
    assert os.stat(local).st_ino != 0
    assert os.listdir(tmp_path) == ["local.txt"]
    os.makedirs(tmp_path / "d" / "e")
    assert os.path.isdir(tmp_path / "d" / "e")
    fd = os.open(local, os.O_RDONLY)
    with open(fd, closefd=True) as f:  # an fd is never a mount path
        assert f.read() == "local"
    os.remove(local)
    assert not local.exists()
    before = len(proxy["cache"].requests())
    with pytest.raises(FileNotFoundError):
        os.stat(f"{BUF}x/not-a-mount.txt")  # shares the mount's string prefix, not its directory
    assert len(proxy["cache"].requests()) == before


# --- mount configuration ------------------------------------------------------------------------

def test_parse_mounts():
    mounts = parse_mounts("weights:/state/weights:write=buffered;cache:/state/cache/:write=passthrough;"
                          "plain:/data", "/sock")
    assert [(m.name, m.path, m.write_mode, m.socket_path) for m in mounts] == [
        ("weights", "/state/weights", "buffered", "/sock/weights.sock"),
        ("cache", "/state/cache", "passthrough", "/sock/cache.sock"),
        ("plain", "/data", "buffered", "/sock/plain.sock"),
    ]


@pytest.mark.parametrize("value, needle", [
    ("Bad_Name:/s:write=buffered", "'Bad_Name:/s:write=buffered'"),
    ("-x:/s", "DNS label"),
    ("a" * 64 + ":/s", "DNS label"),
    ("w:state/w:write=buffered", "must be absolute"),
    ("w:/s/w:write=fast", "unknown write mode 'fast'"),
    ("w:/s/w:mode=buffered", "write=<mode>"),
    ("w:/s/a;w:/s/b", "duplicate name 'w'"),
    ("a:/s;b:/s/inner", "overlaps"),
    ("a:/", "root directory"),
    ("justname", "expected name:/mount/path"),
    (" ; ", "no entries"),
])
def test_bad_mounts_name_the_entry(value, needle):
    with pytest.raises(MountConfigError, match=None) as info:
        parse_mounts(value)
    assert needle in str(info.value)


# --- in a runtime process -----------------------------------------------------------------------

def test_runtime_refuses_bad_mounts_naming_the_entry(start_runtime):
    rt = start_runtime("tm_handlers.echo", env={"SVC_STATE_PROXY_MOUNTS": "ok:/s/ok;bad:rel/path"}, wait=False)
    assert rt.wait_exit() == 2
    err = rt.stderr()
    assert "SVC_STATE_PROXY_MOUNTS" in err and "'bad:rel/path'" in err
    assert not os.path.exists(rt.socket_path)


def test_runtime_installs_hooks_before_the_handler_loads(start_runtime, connectors):
    socket_dir, started = connectors
    rt = start_runtime("tm_state.handle", env={
        "SVC_STATE_PROXY_MOUNTS": f"cache:{ROOT}/rt:write=buffered",
        "SVC_STATE_SOCKET_DIR": socket_dir,
        "TM_STATE_DIR": f"{ROOT}/rt/counter",
    })
    for expected in (1, 2, 3):
        resp = rt.invoke(envelope({"name": "n1"}))
        assert resp.status == 200, resp
        assert resp.json()["frames"][0]["payload"]["hits"] == expected
    keys = {r["path"] for r in started["cache"].requests() if r["method"] == "PUT"}
    assert "/keys/counter/imported.txt" in keys and "/keys/counter/hits/n1" in keys
    assert not os.path.exists(ROOT)
