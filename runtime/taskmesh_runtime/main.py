"""Entry point: ``python3 -m taskmesh_runtime``.

Start-up order (spec "Runtime startup"): read config, remove a stale ready file and socket left by
an earlier process, load and validate the handler, then bind + listen, chmod the socket, and only
then write the ready file. A ready file or socket therefore never exists while the handler is
still importing (a sidecar would otherwise connect to a dead socket of the previous run).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading

from .config import ConfigError, load_config
from .handler import HandlerLoadError, load_handler
from .logs import configure_logging
from .server import UnixHTTPServer, remove_if_exists
from .state_proxy import StateProxy

log = logging.getLogger("taskmesh_runtime")

EXIT_CONFIG = 2
EXIT_HANDLER = 3
EXIT_SOCKET = 4
# How often the runtime checks that the process that started it is still there.
PARENT_CHECK_S = 1.0


def _fatal(message: str, code: int) -> int:
    print(f"taskmesh-runtime: fatal: {message}", file=sys.stderr, flush=True)
    return code


def _write_ready_file(path: str) -> None:
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(tmp, path)


def check_handler(handler_path: str) -> int:
    """``--check``: import and validate SVC_HANDLER as serving would, then exit; nothing is bound
    and no file is touched. ``./taskmesh dev`` runs it for every actor before it starts anything,
    so a typo costs a second, not a broker start."""
    try:
        handler = load_handler(handler_path)
    except HandlerLoadError as exc:
        return _fatal(f"SVC_HANDLER={handler_path!r} cannot be loaded: {exc}", EXIT_HANDLER)
    print(f"taskmesh-runtime: handler {handler_path} loads ({handler.kind})", flush=True)
    handler.close()
    return 0


def _parent_to_watch() -> int:
    """The process whose end stops us. Looked at first thing: a parent that dies while we start
    (our handler's import may take long) would otherwise be seen as init's child from the start,
    and never missed. The sidecar names itself in SVC_PARENT_PID; when that process is gone
    already we return it, so the first check stops us. A parent other than the one named (a
    wrapper between us, such as a python3 that is a script) is watched as it is."""
    ppid = os.getppid()
    named = os.environ.get("SVC_PARENT_PID", "").strip()
    if not named.isdigit() or int(named) in (ppid, 0, 1):
        return ppid
    try:
        os.kill(int(named), 0)
    except ProcessLookupError:
        return int(named)
    except PermissionError:
        pass
    return ppid


def main(argv: list[str] | None = None) -> int:
    parent = _parent_to_watch()
    args = sys.argv[1:] if argv is None else argv
    if args and args != ["--check"]:
        return _fatal(f"unknown arguments {args!r}; the only one is --check", EXIT_CONFIG)
    try:
        cfg = load_config()
    except ConfigError as exc:
        return _fatal(str(exc), EXIT_CONFIG)

    configure_logging(cfg.log_level, os.environ.get("SVC_LOG_FORMAT", ""))
    if args == ["--check"]:
        return check_handler(cfg.handler)

    # 1. stale files of an earlier run go first: the handler import may take minutes
    try:
        remove_if_exists(cfg.ready_path)
        remove_if_exists(cfg.socket_path)
    except OSError as exc:
        return _fatal(f"cannot remove a stale ready file or socket in {cfg.socket_dir!r} "
                      f"(SVC_SOCKET_DIR): {exc}", EXIT_SOCKET)

    # 2. state proxy hooks go in before the handler module is imported: its import-time code
    #    may already open files on a mount
    if cfg.state_mounts:
        StateProxy(list(cfg.state_mounts)).install()
        log.info("state proxy mounts: %s", ", ".join(
            f"{m.name}={m.path} ({m.write_mode}, {m.socket_path})" for m in cfg.state_mounts))

    # 3. load + validate the handler (nothing of ours on disk yet)
    try:
        handler = load_handler(cfg.handler)
    except HandlerLoadError as exc:
        return _fatal(f"SVC_HANDLER={cfg.handler!r} cannot be loaded: {exc}", EXIT_HANDLER)
    log.info("handler %s loaded (%s, called with %s)", cfg.handler, handler.kind,
             "(payload, ctx)" if handler.wants_ctx else "(payload)")

    # From here on a signal must not leave a socket behind: it only sets `stop`; the clean-up
    # at the end removes the socket and the ready file.
    stop = threading.Event()

    def on_signal(signum, _frame):
        log.info("received %s, shutting down", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    # a SIGINT we were started ignoring (a job without job control, nohup) stays ignored, as it is
    # for the process that started us: otherwise one Ctrl-C meant for it stops only us, and it
    # starts us again
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, on_signal)

    # 4. bind the socket (removed once more: something may have appeared during the import)
    try:
        os.makedirs(cfg.socket_dir, exist_ok=True)
        remove_if_exists(cfg.ready_path)
        remove_if_exists(cfg.socket_path)
        server = UnixHTTPServer(cfg.socket_path, handler, validate=cfg.enable_validation,
                                max_body=cfg.max_body_bytes)
    except OSError as exc:
        return _fatal(f"cannot bind Unix socket {cfg.socket_path!r} "
                      f"(SVC_SOCKET_DIR/SVC_SOCKET_NAME): {exc}", EXIT_SOCKET)
    try:
        os.chmod(cfg.socket_path, cfg.socket_chmod)
    except OSError as exc:
        server.server_close()
        remove_if_exists(cfg.socket_path)
        return _fatal(f"cannot chmod {cfg.socket_path!r} to {oct(cfg.socket_chmod)} "
                      f"(SVC_SOCKET_CHMOD): {exc}", EXIT_SOCKET)

    server.start()

    # 5. ready file last (skipped when a signal already asked us to stop)
    try:
        if not stop.is_set():
            _write_ready_file(cfg.ready_path)
    except OSError as exc:
        server.shutdown()
        server.server_close()
        remove_if_exists(cfg.socket_path)
        return _fatal(f"cannot write ready file {cfg.ready_path!r}: {exc}", EXIT_SOCKET)
    log.info("listening on %s (mode %s, validation %s); ready file %s", cfg.socket_path,
             oct(cfg.socket_chmod), "on" if cfg.enable_validation else "off", cfg.ready_path)

    # A runtime never outlives the process that started it: one that died without stopping us (a
    # kill -9, a crash, a close that gave up on a busy actor) leaves us re-parented, with nobody to
    # call us or stop us; we notice within a second and stop as on SIGTERM.
    while not stop.wait(PARENT_CHECK_S):
        if parent != 1 and os.getppid() != parent:
            log.warning("parent process %d is gone, shutting down", parent)
            break

    server.shutdown()
    server.server_close()
    remove_if_exists(cfg.ready_path)
    remove_if_exists(cfg.socket_path)
    handler.close()
    log.info("stopped")
    return 0
