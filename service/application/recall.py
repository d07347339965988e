"""Asking the upstream memory service when this one finds nothing, for a caller, and keeping
what it returns when the settings say so."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from schemas import wire
from schemas.vocabulary import ID_PATTERN, METADATA_VALUE_CHARS
from service.application.auth import Principal
from service.application.events import EventUseCases
from service.domain.errors import EngineUnavailable
from service.domain.memory.bounds import fitted
from service.domain.recall import Recalled, RecallReport, UpstreamRecall
from service.errors import InvalidInput, StrataError

log = logging.getLogger("strata")

MAX_TTL_DAYS = 36_500
"""The longest ``ttl_days`` an event may have."""


@dataclass(frozen=True)
class Recall:
    """A recall's report, and what became of its hits here."""

    report: RecallReport
    kept: int = 0
    """Hits stored as local entries (STRATA_UPSTREAM_STORE=on)."""
    refused: dict[str, str] = field(default_factory=dict)
    """Hits not stored, by their upstream id: why they stay out of bounds once fitted."""
    problem: str | None = None
    """Why the hits were not kept, when keeping them failed."""

    @property
    def hits(self) -> list[Recalled]:
        return self.report.hits

    @property
    def degraded(self) -> list[str]:
        """What the caller should know went wrong: the upstream not asked or failing, the
        hits not kept."""
        r = self.report
        said = []
        if r.outcome == "failed":
            said.append(f"upstream {r.name} failed after {r.attempts} attempts: {r.error}")
        elif r.outcome == "circuit_open":
            said.append(f"upstream {r.name} not asked: its circuit breaker is open")
        elif r.outcome == "busy":
            said.append(f"upstream {r.name} not asked: too many recalls under way")
        if self.problem:
            said.append(f"upstream results not kept: {self.problem}")
        for upstream_id, why in self.refused.items():
            said.append(f"upstream result {upstream_id[:80]!r} not kept: {why}")
        return said


class RecallUseCases:
    def __init__(self, recall: UpstreamRecall, events: EventUseCases, *, keep: bool) -> None:
        self.recall = recall
        self.events = events
        self.keep = keep

    def ask(self, principal: Principal, namespace: str, text: str, limit: int) -> Recall | None:
        """The upstream's hits for ``text`` in the caller's resolved ``namespace``; None when
        that namespace is never asked upstream."""
        report = self.recall.ask(namespace, text, limit)
        if report is None:
            return None
        if not self.keep or not report.hits:
            return Recall(report)
        events: list[wire.Event] = []
        refused: dict[str, str] = {}
        for hit in report.hits:
            event = kept_event(hit)
            try:  # each hit on its own: one out of bounds keeps none of the others out
                self.events.check(principal, [event])
            except InvalidInput as exc:
                refused[hit.entry.id] = exc.detail
                log.warning("upstream %s: result not kept: %s", hit.source, exc.detail)
                continue
            events.append(event)
        if not events:
            return Recall(report, refused=refused)
        try:
            written = self.events.write(principal, events)
        except (StrataError, EngineUnavailable, ValueError, OverflowError) as exc:
            return Recall(report, problem=str(exc), refused=refused)
        return Recall(report, kept=len(written.ids), refused=refused)


def kept_id(source: str, upstream_id: str) -> str:
    """The local id of an upstream entry kept here: ``<name>:<id>``, or the id's digest
    when that would be too long or not an id."""
    candidate = f"{source}:{upstream_id}"
    if re.fullmatch(ID_PATTERN, candidate):
        return candidate
    return f"{source[:60]}:{hashlib.sha256(upstream_id.encode()).hexdigest()[:40]}"


def kept_event(hit: Recalled) -> wire.Event:
    """An upstream hit as the event that stores it here, saying where it came from, fitted
    to the bounds of a stored entry (``bounds.fitted``: where it came from first, then what
    room is left of the upstream's metadata). What is still out of bounds (a blank or
    over-long text) is refused when written."""
    source = {
        "upstream": hit.source,
        "upstream_namespace": hit.namespace,
        "upstream_id": hit.entry.id,
    }
    held = {k: v for k, v in hit.entry.metadata.items() if k not in source}
    e = fitted(replace(hit.entry, metadata={**_cut(source), **held}))
    ttl = None
    if e.tier == "C" and e.expires_at is not None and e.expires_at > e.timestamp:
        ttl = min((e.expires_at - e.timestamp) / 86_400, MAX_TTL_DAYS)
    return wire.Event(
        text=e.text,
        tier=e.tier,
        id=kept_id(hit.source, e.id),
        namespace=e.namespace,
        speaker=e.speaker,
        role=e.role,
        chain_type=e.chain_type,
        tags=list(e.tags),
        timestamp=datetime.fromtimestamp(e.timestamp, UTC).isoformat(),
        ttl_days=ttl,
        metadata=dict(e.metadata),
        kind="pattern" if e.kind == "pattern" else "memory",  # digests are this service's own
        type=e.type,
        confidence=e.confidence,
        variants=list(e.variants),
        thread=e.thread,
    )


def _cut(source: dict[str, str]) -> dict[str, str]:
    """Where a hit came from, each value cut to what a metadata value may hold (an upstream
    id may be longer: the local id then holds its digest)."""
    return {k: v[:METADATA_VALUE_CHARS] for k, v in source.items()}
