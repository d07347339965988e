"""Log lines that name the request they belong to; as text, or one JSON object per line
(STRATA_LOG_FORMAT=json).

A message often holds a caller's text (a request's path, an entry's id): its control
characters are written escaped (``\\x0a``), so no caller can start a line of its own or send
a terminal escape sequence to whoever reads the log. A traceback keeps its lines."""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

REQUEST_ID: ContextVar[str | None] = ContextVar("strata_request_id", default=None)
"""The id of the request being answered (threads a handler runs on inherit it)."""

CALLER_ID = re.compile(r"[A-Za-z0-9._:/=+-]{1,128}")
"""An ``X-Request-ID`` a caller may choose: short, and nothing a log line could be forged with."""
TEXT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""Characters a log line must not hold as they are: C0 and C1 controls (line feed, carriage
return, escape), delete, and the Unicode line and paragraph separators."""


def printable(text: str) -> str:
    """``text`` with each control character escaped (a line feed as ``\\x0a``)."""
    return CONTROL.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def request_id(given: str | None) -> str:
    """The caller's id when it is a fit one, else a fresh one."""
    if given and CALLER_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Gives every record the request id of its context (``-`` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get() or "-"
        return True


class TextFormatter(logging.Formatter):
    """``TEXT``, with the message's control characters escaped."""

    def __init__(self) -> None:
        super().__init__(TEXT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        return printable(super().formatMessage(record))


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id, and the
    exception when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": printable(record.getMessage()),
        }
        rid = getattr(record, "request_id", None)
        if rid and rid != "-":
            line["request_id"] = rid
        for key in ("method", "route", "path", "status", "duration_ms"):
            if hasattr(record, key):
                field = getattr(record, key)
                line[key] = printable(field) if isinstance(field, str) else field
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure_logging(form: str, level: int = logging.INFO) -> None:
    """The process's logging: every logger (uvicorn's too) through one handler in ``form``
    (``text`` or ``json``), each line with its request id."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
