"""Process life cycle: start-up order, bad configuration, signals, socket permissions."""

import os
import signal
import socket
import stat
import time

import pytest

from conftest import Runtime, envelope, wait_until


def test_ready_file_only_after_handler_loaded_and_socket_bound(start_runtime):
    rt = start_runtime("tm_slow.handle", env={"TM_IMPORT_DELAY": "0.6"}, wait=False)
    t0 = time.monotonic()
    # While the handler module is being imported: neither socket nor ready file.
    while time.monotonic() - t0 < 0.4:
        assert not os.path.exists(rt.socket_path)
        assert not os.path.exists(rt.ready_path)
        time.sleep(0.02)

    observed = []

    def ready():
        r = os.path.exists(rt.ready_path)
        s = os.path.exists(rt.socket_path)
        observed.append((s, r))
        return r

    wait_until(ready, what="ready file")
    # the ready file never appeared without the socket
    assert all(s for s, r in observed if r)
    # ... and the socket accepts connections as soon as the ready file exists
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(rt.socket_path)
    sock.close()
    assert rt.invoke(envelope({"slow": True})).status == 200


def test_default_socket_name_and_custom_name(start_runtime):
    rt = start_runtime("tm_handlers.echo", env={"SVC_SOCKET_NAME": "custom.sock"})
    assert os.path.basename(rt.socket_path) == "custom.sock"
    assert stat.S_ISSOCK(os.stat(rt.socket_path).st_mode)
    assert rt.request("GET", "/healthz").status == 200


@pytest.mark.parametrize("handler, needle", [
    (None, "SVC_HANDLER is required"),
    ("", "SVC_HANDLER is required"),
    ("nodots", "SVC_HANDLER must look like"),
    ("bad-name.fn", "SVC_HANDLER must look like"),
    ("no_such_module_xyz.handle", "SVC_HANDLER"),
    ("tm_handlers.does_not_exist", "has no attribute 'does_not_exist'"),
    ("tm_broken.handle", "tm_dependency_that_does_not_exist"),
    ("tm_badctor.Needs.handle", "instantiating Needs() failed"),
    ("tm_badctor.three", "requires 3 positional arguments"),
    ("tm_handlers.Counter.nope", "has no attribute 'nope'"),
])
def test_bad_handler_exits_nonzero_without_socket(start_runtime, handler, needle):
    rt = start_runtime(handler, wait=False)
    rc = rt.wait_exit()
    err = rt.stderr()
    assert rc != 0
    assert "SVC_HANDLER" in err
    assert needle in err
    assert os.listdir(rt.socket_dir) == []


@pytest.mark.parametrize("env, var", [
    ({"SVC_SOCKET_CHMOD": "rw-rw-rw-"}, "SVC_SOCKET_CHMOD"),
    ({"SVC_SOCKET_CHMOD": "0o999"}, "SVC_SOCKET_CHMOD"),
    ({"SVC_ENABLE_VALIDATION": "maybe"}, "SVC_ENABLE_VALIDATION"),
    ({"SVC_LOG_LEVEL": "LOUD"}, "SVC_LOG_LEVEL"),
])
def test_bad_config_exits_nonzero_naming_variable(start_runtime, env, var):
    rt = start_runtime("tm_handlers.echo", env=env, wait=False)
    assert rt.wait_exit() != 0
    assert var in rt.stderr()
    assert os.listdir(rt.socket_dir) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_removes_socket_and_ready_file(start_runtime, sig):
    rt = start_runtime("tm_handlers.echo")
    assert os.path.exists(rt.socket_path) and os.path.exists(rt.ready_path)
    rt.signal(sig)
    assert rt.wait_exit() == 0
    assert not os.path.exists(rt.socket_path)
    assert not os.path.exists(rt.ready_path)


@pytest.mark.parametrize("value, mode", [(None, 0o666), ("600", 0o600), ("0o640", 0o640),
                                         ("0660", 0o660)])
def test_socket_chmod(start_runtime, value, mode):
    env = {} if value is None else {"SVC_SOCKET_CHMOD": value}
    rt = start_runtime("tm_handlers.echo", env=env)
    assert stat.S_IMODE(os.stat(rt.socket_path).st_mode) == mode


def test_stale_socket_and_ready_file_are_replaced(start_runtime, tmp_path):
    first = start_runtime("tm_handlers.echo")
    first.proc.kill()  # no clean-up: leaves a stale socket and ready file behind
    first.wait_exit()
    assert os.path.exists(first.socket_path) and os.path.exists(first.ready_path)
    second = start_runtime("tm_handlers.echo", socket_dir=first.socket_dir, wait=False)

    def fresh_ready():
        try:
            with open(second.ready_path) as f:
                return f.read().strip() == str(second.proc.pid)
        except FileNotFoundError:
            return False

    wait_until(fresh_ready, what="ready file of the new process")
    assert second.request("GET", "/healthz").status == 200


def test_payloads_not_logged_at_info(start_runtime):
    rt = start_runtime("tm_handlers.echo")
    assert rt.invoke(envelope({"secret": "s3cr3t-value"})).status == 200
    assert rt.invoke(b'{"secret-in-bad-json": "s3cr3t-value"').status == 400
    rt.signal(signal.SIGTERM)
    rt.wait_exit()
    err = rt.stderr()
    assert "invoke id=env-1 -> 200" in err
    assert "s3cr3t-value" not in err


def test_payloads_logged_at_debug(start_runtime):
    rt = start_runtime("tm_handlers.echo", env={"SVC_LOG_LEVEL": "DEBUG"})
    assert rt.invoke(envelope({"visible": "dbg-value"})).status == 200
    wait_until(lambda: "dbg-value" in rt.stderr(), what="debug log")


def test_unwritable_socket_dir_fails_cleanly(start_runtime, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rt = Runtime("tm_handlers.echo", socket_dir=str(blocker / "sub"))
    try:
        assert rt.wait_exit() != 0
        assert "SVC_SOCKET_DIR" in rt.stderr()
    finally:
        rt.stop()


def test_stale_ready_file_and_socket_removed_before_the_handler_import(start_runtime, tmp_path):
    socket_dir = tmp_path / "sock"
    socket_dir.mkdir()
    stale_socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale_socket.bind(str(socket_dir / "svc-runtime.sock"))  # bound, never listening: refuses
    stale_socket.close()
    (socket_dir / "runtime-ready").write_text("12345\n")
    marker = tmp_path / "imported"
    rt = start_runtime("tm_slow.handle", socket_dir=str(socket_dir), wait=False,
                       env={"TM_IMPORT_DELAY": "1.5", "TM_IMPORT_MARKER": str(marker)})
    wait_until(lambda: not os.path.exists(rt.ready_path) and not os.path.exists(rt.socket_path),
               timeout=5, what="stale files removed")
    # still importing: a sidecar polling now sees no ready file and no dead socket
    assert not marker.exists()
    rt.wait_ready()
    assert marker.exists()
    with open(rt.ready_path) as f:
        assert f.read().strip() == str(rt.proc.pid)
    assert rt.invoke(envelope({"fresh": True})).status == 200


def test_a_runtime_whose_named_parent_died_before_it_looked_stops(tmp_path):
    """The sidecar names itself (SVC_PARENT_PID). Killed while the runtime still started, it was
    missed before: the runtime took init for its parent from the start and ran on."""
    import subprocess
    import sys
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(10)  # reaped: its pid names no process now
    rt_env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    rt_env.update({"SVC_HANDLER": "tm_handlers.echo", "SVC_SOCKET_DIR": str(tmp_path / "s"),
                   "SVC_PARENT_PID": str(gone.pid), "PYTHONPATH": os.pathsep.join(sys.path)})
    runtime = subprocess.Popen([sys.executable, "-m", "taskmesh_runtime"], env=rt_env,
                               cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = runtime.communicate(timeout=30)
        assert runtime.returncode == 0
        assert b"is gone, shutting down" in out
        assert not (tmp_path / "s" / "svc-runtime.sock").exists()
    finally:
        if runtime.poll() is None:
            runtime.kill()


def test_a_runtime_named_a_live_parent_that_is_not_its_own_watches_its_own(tmp_path):
    """A wrapper between the sidecar and the runtime (a python3 that is a script) makes the named
    parent a grandparent: the runtime then watches the parent it has, and serves."""
    import subprocess
    import sys
    rt_env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    rt_env.update({"SVC_HANDLER": "tm_handlers.echo", "SVC_SOCKET_DIR": str(tmp_path / "s"),
                   "SVC_PARENT_PID": str(os.getppid()), "PYTHONPATH": os.pathsep.join(sys.path)})
    runtime = subprocess.Popen([sys.executable, "-m", "taskmesh_runtime"], env=rt_env,
                               cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        wait_until(lambda: (tmp_path / "s" / "runtime-ready").exists(), 10, what="ready file")
        assert runtime.poll() is None
    finally:
        runtime.terminate()
        runtime.wait(10)


def test_a_runtime_stops_when_the_process_that_started_it_dies(tmp_path):
    """A parent that dies without stopping it (kill -9) leaves the runtime re-parented: it stops
    within seconds and removes its socket, so no runtime outlives what started it."""
    import subprocess
    import sys
    pid_file = tmp_path / "runtime.pid"
    rt_env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    rt_env.update({"SVC_HANDLER": "tm_handlers.echo", "SVC_SOCKET_DIR": str(tmp_path / "s"),
                   "PYTHONPATH": os.pathsep.join(sys.path)})
    # the middle process starts the runtime, writes its pid and waits forever: it is what dies
    middle = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time\n"
         "p = subprocess.Popen([sys.executable, '-m', 'taskmesh_runtime'])\n"
         f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
         "time.sleep(600)\n"],
        env=rt_env, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        wait_until(lambda: pid_file.exists() and pid_file.read_text(), 10, what="runtime pid")
        runtime = int(pid_file.read_text())
        wait_until(lambda: (tmp_path / "s" / "runtime-ready").exists(), 10, what="ready file")
        middle.kill()
        middle.wait(10)

        def gone():
            try:
                os.kill(runtime, 0)
            except ProcessLookupError:
                return True
            # a zombie (exited, not yet reaped by init) counts as gone
            with open(f"/proc/{runtime}/stat") as f:
                return f.read().split(") ")[1].split()[0] == "Z"
        wait_until(gone, 10, what="runtime stopped after its parent died")
        assert not (tmp_path / "s" / "svc-runtime.sock").exists()
    finally:
        if middle.poll() is None:
            middle.kill()


def test_a_sigint_the_runtime_was_started_ignoring_stays_ignored(tmp_path):
    """Started with SIGINT ignored, as the JVM that starts it then is, the runtime ignores it too
    (else a Ctrl-C meant for its parent stops only the runtime, and the parent starts it again);
    SIGTERM still stops it."""
    import subprocess
    import sys
    rt_env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    rt_env.update({"SVC_HANDLER": "tm_handlers.echo", "SVC_SOCKET_DIR": str(tmp_path),
                   "PYTHONPATH": os.pathsep.join(sys.path)})
    rt = subprocess.Popen(
        [sys.executable, "-m", "taskmesh_runtime"], env=rt_env,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        wait_until(lambda: (tmp_path / "runtime-ready").exists(), 10, what="ready file")
        rt.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            rt.wait(1.5)
        rt.send_signal(signal.SIGTERM)
        assert rt.wait(10) == 0
    finally:
        if rt.poll() is None:
            rt.kill()
