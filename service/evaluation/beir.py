"""BEIR-format retrieval sets (``corpus.jsonl``, ``queries.jsonl``, ``qrels.tsv``) read as
strata events: what the quality benchmark and ``strata calibrate`` feed the service."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ID_RE = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
ID_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.:-]")
MAX_ID_LEN = 128
TIMESTAMP_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d",
    "%Y/%m/%d %H:%M:%S",
    "%Y/%m/%d",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y",
    "%I:%M %p on %d %B, %Y",
    "%I:%M %p on %d %b, %Y",
    "%d %B %Y",
    "%d %B, %Y",
    "%B %d, %Y",
    "%b %d, %Y",
)
RESERVED_META = ("namespace", "speaker", "timestamp", "tier", "age_days", "type", "supersedes")
"""Metadata keys that become event fields (or set them) rather than event metadata."""

Qrels = dict[str, dict[str, int]]


@dataclass(frozen=True)
class Doc:
    id: str
    """Sanitized id sent to the service."""
    source_id: str
    """The ``_id`` of the corpus row."""
    title: str
    text: str
    metadata: Mapping[str, Any]


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    namespace: str | None
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """The row's ``metadata`` as written (``namespace`` included), for instance its
    ``form``."""


def sanitize_id(raw: str) -> str:
    """A service-valid id for ``raw``: bad characters become ``_``; too long gets a hash."""
    clean = ID_BAD_CHARS.sub("_", raw)
    if ID_RE.fullmatch(clean):
        return clean
    digest = hashlib.sha1(raw.encode("utf-8")).hexdigest()[:12]
    if not clean:
        return digest
    if len(clean) > MAX_ID_LEN:
        return clean[: MAX_ID_LEN - len(digest) - 1] + "." + digest
    return clean


def namespace_for(prefix: str, raw: object) -> str:
    name = str(raw) if raw not in (None, "") else "default"
    return sanitize_id(f"{prefix}-{name}")


def parse_timestamp(raw: object) -> str | None:
    """ISO 8601 (UTC assumed when naive) for ``raw``, or None when it cannot be read."""
    if raw is None or raw == "" or isinstance(raw, bool):
        return None
    parsed = _parse_timestamp_text(str(raw).strip())
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.isoformat().replace("+00:00", "Z")


def _parse_timestamp_text(text: str) -> datetime | None:
    with contextlib.suppress(ValueError):
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    for fmt in TIMESTAMP_FORMATS:
        with contextlib.suppress(ValueError):
            return datetime.strptime(text, fmt)
    with contextlib.suppress(ValueError, OverflowError, OSError):
        return datetime.fromtimestamp(float(text), tz=UTC)
    return None


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def load_corpus(dataset: Path) -> list[Doc]:
    """Corpus rows with unique sanitized ids (a hash suffix resolves collisions)."""
    docs: list[Doc] = []
    taken: set[str] = set()
    for row in _read_jsonl(dataset / "corpus.jsonl"):
        source_id = str(row["_id"])
        doc_id = sanitize_id(source_id)
        if doc_id in taken:
            digest = hashlib.sha1(source_id.encode("utf-8")).hexdigest()[:12]
            doc_id = doc_id[: MAX_ID_LEN - len(digest) - 1] + "." + digest
        taken.add(doc_id)
        docs.append(
            Doc(
                id=doc_id,
                source_id=source_id,
                title=str(row.get("title") or ""),
                text=str(row.get("text") or ""),
                metadata=row.get("metadata") or {},
            )
        )
    return docs


def load_queries(dataset: Path) -> list[Query]:
    """Query rows in file order, each asked in its ``metadata.namespace`` (None: none)."""
    queries: list[Query] = []
    for row in _read_jsonl(dataset / "queries.jsonl"):
        meta = row.get("metadata") or {}
        ns = meta.get("namespace")
        namespace = None if ns is None else str(ns)
        queries.append(Query(str(row["_id"]), str(row["text"]), namespace, meta))
    return queries


def load_qrels(dataset: Path) -> Qrels:
    """``{query id: {corpus id: score}}``; the header line is skipped."""
    qrels: Qrels = {}
    with (dataset / "qrels.tsv").open(encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or (n == 0 and parts[0] == "query-id"):
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(float(parts[2]))
    return qrels


# --------------------------------------------------------------------------- service


def to_event(doc: Doc, tier: str, prefix: str, *, now: datetime | None = None) -> dict[str, Any]:
    """The ``POST /v1/events`` event of a corpus row.

    ``metadata.tier``, when the row has one, is its tier; ``tier`` is for rows without. A
    row's ``metadata.age_days`` (its age when the set was written) dates it ``now`` minus
    that age, so an entry is as old whenever the set is loaded (a tier C entry stays live);
    otherwise ``metadata.timestamp`` dates it. ``metadata.type`` is its type and
    ``metadata.supersedes`` (corpus ids) the entries it replaces: write the rows in
    ``write_order`` so those are stored first. ``now``: the current time when None.
    """
    meta = doc.metadata
    row_tier = meta.get("tier")
    event: dict[str, Any] = {
        "id": doc.id,
        "tier": str(row_tier) if row_tier not in (None, "") else tier,
        # As in BEIR, a document's title is part of what is indexed and embedded.
        "text": f"{doc.title}: {doc.text}" if doc.title else doc.text,
        "namespace": namespace_for(prefix, meta.get("namespace")),
    }
    if meta.get("speaker") not in (None, ""):
        event["speaker"] = str(meta["speaker"])
    if meta.get("type") not in (None, ""):
        event["type"] = str(meta["type"])
    if replaced := superseded_ids(doc):
        event["supersedes"] = replaced
    timestamp = _aged_timestamp(meta.get("age_days"), now) or parse_timestamp(meta.get("timestamp"))
    if timestamp is not None:
        event["timestamp"] = timestamp
    # Rows of one conversation session (or thread) form a thread, in corpus order.
    thread = meta.get("thread", meta.get("session"))
    if thread not in (None, ""):
        event["thread"] = sanitize_id(f"session-{thread}")[:200]
    extra = {str(k): _as_text(v) for k, v in meta.items() if k not in RESERVED_META}
    if extra:
        event["metadata"] = extra
    return event


def superseded_ids(doc: Doc) -> list[str]:
    """The service ids of the rows ``doc`` replaces (``metadata.supersedes``: an id or a
    list of them)."""
    given = doc.metadata.get("supersedes")
    if given in (None, "", []):
        return []
    listed = given if isinstance(given, list) else [given]
    return [sanitize_id(str(source)) for source in listed]


def write_order(docs: Sequence[Doc]) -> list[list[Doc]]:
    """The rows in phases to write one after another: a row that replaces others comes in a
    phase after theirs, so every supersession names an entry already stored (rows keep
    their order within a phase; a row naming one never written, or a cycle, goes last)."""
    pending = list(docs)
    ids = {d.id for d in docs}
    written: set[str] = set()
    phases: list[list[Doc]] = []
    while pending:
        ready = [d for d in pending if all(s in written or s not in ids for s in superseded_ids(d))]
        if not ready:
            phases.append(pending)
            break
        phases.append(ready)
        written.update(d.id for d in ready)
        taken = {d.id for d in ready}
        pending = [d for d in pending if d.id not in taken]
    return phases


def _aged_timestamp(age_days: object, now: datetime | None) -> str | None:
    """ISO 8601 UTC of ``now`` minus ``age_days`` days; None when the age is not a number."""
    if isinstance(age_days, bool) or not isinstance(age_days, int | float | str):
        return None
    try:
        age = timedelta(days=float(age_days))
    except (ValueError, OverflowError):
        return None
    moment = (now or datetime.now(UTC)) - age
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _as_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
