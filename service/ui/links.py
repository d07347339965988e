"""Addresses of console pages, built in one place."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

DOCUMENT_LINES = 1000
"""Lines the document viewer shows per page."""


def query(base: str, /, **params: Any) -> str:
    """``base`` with the parameters that have a value as its query string."""
    given = [(k, v) for k, v in params.items() if not _blank(v)]
    return f"{base}?{urlencode(given, doseq=True)}" if given else base


def _blank(value: Any) -> bool:
    """Whether a parameter is left out: None, False, empty text or an empty list (a 0 is a
    value)."""
    return value is None or value is False or (isinstance(value, str | list) and not value)


def entry_link(entry_id: str, namespace: str | None) -> str:
    return query(f"/ui/entries/{quote(entry_id, safe='')}", namespace=namespace)


def collection_link(name: str) -> str:
    return f"/ui/collections/{quote(name, safe='')}"


def page_start(line: int) -> int:
    """The first line of the viewer's page holding ``line``."""
    return 1 + (max(line, 1) - 1) // DOCUMENT_LINES * DOCUMENT_LINES


def document_link(path: str, lines: str | None = None) -> str:
    """The viewer at a document's line range (``first-last``), anchored at its first line."""
    first = lines.split("-", 1)[0] if lines else ""
    if not first.isdigit():
        return query("/ui/documents", path=path)
    line = int(first)
    start = page_start(line)
    return query("/ui/documents", path=path, **{"from": start if start > 1 else None}) + f"#L{line}"
