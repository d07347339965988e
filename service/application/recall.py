"""Asking the upstream memory service when this one finds nothing, for a caller, and keeping
what it returns when the settings say so."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from schemas import wire
from schemas.vocabulary import ID_PATTERN
from service.application.auth import Principal
from service.application.events import EventUseCases
from service.domain.models import EngineUnavailable
from service.domain.recall import Recalled, RecallReport, UpstreamRecall
from service.errors import StrataError

MAX_TTL_DAYS = 36_500
"""The longest ``ttl_days`` an event may have."""


@dataclass(frozen=True)
class Recall:
    """A recall's report, and what became of its hits here."""

    report: RecallReport
    kept: int = 0
    """Hits stored as local entries (STRATA_UPSTREAM_STORE=on)."""
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
        return said


class RecallCases:
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
        try:
            written = self.events.write(principal, [kept_event(hit) for hit in report.hits])
        except (StrataError, EngineUnavailable, ValueError, OverflowError) as exc:
            return Recall(report, problem=str(exc))
        return Recall(report, kept=len(written.ids))


def kept_id(source: str, upstream_id: str) -> str:
    """The local id of an upstream entry kept here: ``<name>:<id>``, or the id's digest
    when that would be too long or not an id."""
    candidate = f"{source}:{upstream_id}"
    if re.fullmatch(ID_PATTERN, candidate):
        return candidate
    return f"{source[:60]}:{hashlib.sha256(upstream_id.encode()).hexdigest()[:40]}"


def kept_event(hit: Recalled) -> wire.Event:
    """An upstream hit as the event that stores it here, saying where it came from."""
    e = hit.entry
    ttl = None
    if e.tier == "C" and e.expires_at is not None and e.expires_at > e.timestamp:
        ttl = min((e.expires_at - e.timestamp) / 86_400, MAX_TTL_DAYS)
    scalars = {
        k: v for k, v in e.metadata.items() if v is None or isinstance(v, str | int | float | bool)
    }
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
        metadata={
            **scalars,
            "upstream": hit.source,
            "upstream_namespace": hit.namespace,
            "upstream_id": e.id,
        },
        kind="pattern" if e.kind == "pattern" else "memory",  # digests are this service's own
        type=e.type,
        confidence=e.confidence,
        variants=list(e.variants),
        thread=e.thread,
    )
