"""Logging set-up: plain lines on stderr, or one JSON object per line with SVC_LOG_FORMAT=json,
with the field names the Java services write under the same variable (Logback's JsonEncoder),
so one log pipeline reads both."""

from __future__ import annotations

import json
import logging
import sys
import time


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``timestamp`` (epoch ms, as Logback writes it), ``level``,
    ``threadName``, ``loggerName``, ``formattedMessage``, and ``throwable`` (the traceback) when
    there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "timestamp": int(record.created * 1000),
            "level": record.levelname,
            "threadName": record.threadName,
            "loggerName": record.name,
            "formattedMessage": record.getMessage(),
        }
        if record.exc_info:
            out["throwable"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``asctime level logger: message``, the date and time part of asctime formatted once per
    second: logging formats it anew for every record, and the runtime writes one line per call."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self._second: tuple[int, str] = (-1, "")  # one tuple: threads read a consistent pair

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        second, text = self._second
        if second != int(record.created):
            second = int(record.created)
            text = time.strftime(self.default_time_format, self.converter(second))
            self._second = (second, text)
        return self.default_msec_format % (text, record.msecs)


def configure_logging(level: str, log_format: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if log_format.strip().lower() == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    logging.basicConfig(level=getattr(logging, level), handlers=[handler])
