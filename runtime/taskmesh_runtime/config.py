"""Runtime configuration read from SVC_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from .state_proxy import DEFAULT_SOCKET_DIR as DEFAULT_STATE_SOCKET_DIR
from .state_proxy import Mount, MountConfigError, parse_mounts

DEFAULT_SOCKET_DIR = "/var/run/svc"
DEFAULT_SOCKET_NAME = "svc-runtime.sock"
DEFAULT_SOCKET_CHMOD = 0o666
DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
READY_FILE_NAME = "runtime-ready"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

_TRUE = {"true", "1", "yes", "on", ""}
_FALSE = {"false", "0", "no", "off"}


class ConfigError(Exception):
    """A bad or missing environment variable. The message names the variable."""


@dataclass(frozen=True)
class Config:
    handler: str
    socket_dir: str = DEFAULT_SOCKET_DIR
    socket_name: str = DEFAULT_SOCKET_NAME
    socket_chmod: int = DEFAULT_SOCKET_CHMOD
    enable_validation: bool = True
    log_level: str = "INFO"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    state_mounts: tuple[Mount, ...] = ()

    @property
    def socket_path(self) -> str:
        return os.path.join(self.socket_dir, self.socket_name)

    @property
    def ready_path(self) -> str:
        return os.path.join(self.socket_dir, READY_FILE_NAME)


def parse_chmod(value: str) -> int:
    """Parse an octal permission string: "0o666", "0666" or "666"."""
    text = value.strip().lower()
    if text.startswith("0o"):
        text = text[2:]
    if not text or any(c not in "01234567" for c in text):
        raise ConfigError(f"SVC_SOCKET_CHMOD must be an octal string like 0o666 or 666, got {value!r}")
    mode = int(text, 8)
    if mode > 0o7777:
        raise ConfigError(f"SVC_SOCKET_CHMOD out of range: {value!r}")
    return mode


def parse_bool(name: str, value: str) -> bool:
    text = value.strip().lower()
    if text in _FALSE:
        return False
    if text in _TRUE:
        return True
    raise ConfigError(f"{name} must be true/false (or 1/0, yes/no), got {value!r}")


def parse_handler_path(value: str | None) -> str:
    if value is None or not value.strip():
        raise ConfigError("SVC_HANDLER is required: set it to 'module.function' or 'module.Class.method'")
    text = value.strip()
    parts = text.split(".")
    if len(parts) < 2 or any(not p.isidentifier() for p in parts):
        raise ConfigError(
            f"SVC_HANDLER must look like 'module.function' or 'module.Class.method', got {value!r}"
        )
    return text


def load_config(env: Mapping[str, str] | None = None) -> Config:
    env = os.environ if env is None else env
    handler = parse_handler_path(env.get("SVC_HANDLER"))
    socket_dir = env.get("SVC_SOCKET_DIR") or DEFAULT_SOCKET_DIR
    socket_name = env.get("SVC_SOCKET_NAME") or DEFAULT_SOCKET_NAME
    if "/" in socket_name:
        raise ConfigError(f"SVC_SOCKET_NAME must be a file name without '/', got {socket_name!r}")
    chmod_raw = env.get("SVC_SOCKET_CHMOD")
    socket_chmod = parse_chmod(chmod_raw) if chmod_raw not in (None, "") else DEFAULT_SOCKET_CHMOD
    validation_raw = env.get("SVC_ENABLE_VALIDATION")
    enable_validation = (
        parse_bool("SVC_ENABLE_VALIDATION", validation_raw) if validation_raw is not None else True
    )
    log_level = (env.get("SVC_LOG_LEVEL") or "INFO").strip().upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"SVC_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}")
    max_raw = env.get("SVC_MAX_BODY_BYTES")
    if max_raw:
        try:
            max_body = int(max_raw)
        except ValueError:
            raise ConfigError(f"SVC_MAX_BODY_BYTES must be an integer, got {max_raw!r}") from None
        if max_body <= 0:
            raise ConfigError(f"SVC_MAX_BODY_BYTES must be positive, got {max_raw!r}")
    else:
        max_body = DEFAULT_MAX_BODY_BYTES
    mounts_raw = env.get("SVC_STATE_PROXY_MOUNTS")
    state_mounts: tuple[Mount, ...] = ()
    if mounts_raw is not None and mounts_raw.strip():
        state_dir = env.get("SVC_STATE_SOCKET_DIR") or DEFAULT_STATE_SOCKET_DIR
        try:
            state_mounts = tuple(parse_mounts(mounts_raw, state_dir))
        except MountConfigError as exc:
            raise ConfigError(f"SVC_STATE_PROXY_MOUNTS: {exc}") from None
    return Config(
        handler=handler,
        socket_dir=socket_dir,
        socket_name=socket_name,
        socket_chmod=socket_chmod,
        enable_validation=enable_validation,
        log_level=log_level,
        max_body_bytes=max_body,
        state_mounts=state_mounts,
    )
