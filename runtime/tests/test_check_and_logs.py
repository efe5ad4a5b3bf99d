"""``--check`` (import the handler without serving, used by ``./taskmesh dev`` before it starts
anything) and ``SVC_LOG_FORMAT=json``."""

import json
import os
import subprocess
import sys
import tempfile
import time

from conftest import EXAMPLES_DIR, HANDLERS_DIR, RUNTIME_DIR, Runtime, envelope


def run_check(handler, socket_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    env["PYTHONPATH"] = os.pathsep.join([str(RUNTIME_DIR), str(HANDLERS_DIR), str(EXAMPLES_DIR)])
    env["SVC_HANDLER"] = handler
    env["SVC_SOCKET_DIR"] = socket_dir
    return subprocess.run([sys.executable, "-m", "taskmesh_runtime", "--check"], env=env,
                          capture_output=True, text=True, timeout=30)


def test_check_of_a_good_handler_exits_zero_and_binds_nothing():
    socket_dir = tempfile.mkdtemp(prefix="tmrt-check-", dir="/tmp")
    done = run_check("tm_handlers.echo", socket_dir)
    assert done.returncode == 0, done.stderr
    assert "tm_handlers.echo loads" in done.stdout
    assert os.listdir(socket_dir) == []


def test_check_of_a_typo_exits_3_with_one_line_naming_the_attribute():
    socket_dir = tempfile.mkdtemp(prefix="tmrt-check-", dir="/tmp")
    done = run_check("tm_handlers.does_not_exist", socket_dir)
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "has no attribute 'does_not_exist'" in lines[0]
    assert os.listdir(socket_dir) == []


def test_check_of_a_missing_module_exits_3():
    done = run_check("no_such_module_xyz.handle", tempfile.mkdtemp(dir="/tmp"))
    assert done.returncode == 3
    assert "no_such_module_xyz" in done.stderr


def test_unknown_argument_exits_2():
    env = dict(os.environ, PYTHONPATH=str(RUNTIME_DIR), SVC_HANDLER="tm_handlers.echo")
    done = subprocess.run([sys.executable, "-m", "taskmesh_runtime", "--serve-twice"], env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "--check" in done.stderr


def test_json_log_format_writes_one_object_per_line():
    rt = Runtime("tm_handlers.echo", env={"SVC_LOG_FORMAT": "json"}).wait_ready()
    try:
        assert rt.invoke(envelope({"x": 1})).status == 200
        rt.signal()
        assert rt.wait_exit() == 0
        lines = [line for line in rt.stderr().splitlines() if line.strip()]
        assert lines, "the runtime logged nothing"
        records = [json.loads(line) for line in lines]
        assert {"timestamp", "level", "threadName", "loggerName", "formattedMessage"} <= set(
            records[0])
        assert any("listening on" in r["formattedMessage"] for r in records)
        assert all(r["level"] in ("DEBUG", "INFO", "WARNING", "ERROR") for r in records)
    finally:
        rt.stop()


def test_text_log_format_is_the_default():
    rt = Runtime("tm_handlers.echo").wait_ready()
    try:
        rt.signal()
        rt.wait_exit()
        first = rt.stderr().splitlines()[0]
        assert " INFO taskmesh_runtime" in first
        assert not first.startswith("{")
    finally:
        rt.stop()


def test_text_log_lines_carry_local_time_with_milliseconds():
    """The per-call line, its time formatted once a second, reads as logging's own asctime."""
    import datetime
    import re

    rt = Runtime("tm_handlers.echo").wait_ready()
    try:
        for i in range(3):
            assert rt.invoke(envelope({"x": i}, id_=f"t-{i}")).status == 200
            time.sleep(0.6)  # so the calls fall into at least two different seconds
        rt.signal()
        assert rt.wait_exit() == 0
        calls = [line for line in rt.stderr().splitlines() if "invoke id=t-" in line]
        assert len(calls) == 3
        stamps = []
        for line in calls:
            match = re.fullmatch(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) INFO taskmesh_runtime: "
                                 r"invoke id=t-\d -> 200 frames=1 \(\d+\.\d ms\)", line)
            assert match, line
            stamps.append(datetime.datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f"))
        assert abs((datetime.datetime.now() - stamps[0]).total_seconds()) < 10
        # a second's text reused past its second would put a line before the one it follows
        gaps = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:])]
        assert all(0.5 < gap < 3 for gap in gaps), gaps
    finally:
        rt.stop()
