"""Domain results as the wire types every front end answers with (REST, MCP, console)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from schemas import wire
from service.application.admin import JobView, Promoted
from service.application.answers import Retrieved, RoutineReport
from service.application.chains import Chain, Link
from service.application.collections import CollectionView, Scanned
from service.application.context import Contextualised
from service.application.documents import Document, Documents
from service.application.events import EntryHistory, Found
from service.application.recall import Recall
from service.application.search import Searched
from service.application.status import Health
from service.domain.answer import Answered
from service.domain.context import Included
from service.domain.interactions import DailyReport, Feedback
from service.domain.models import (
    DIGEST,
    EARLIEST_TIME,
    LATEST_TIME,
    Entry,
    Quarantined,
    SearchResult,
    WriteOutcome,
    key_namespace,
)
from service.domain.recall import Recalled, UpstreamSnapshot
from service.domain.stats import Stats
from service.domain.tiers import is_live
from service.domain.usage import ModelWork
from service.jobs.rebuild import RebuildStatus

UNANSWERED_SHOWN = 500
"""Most unanswered questions a daily report lists."""


def format_time(seconds: float | None) -> str | None:
    """ISO 8601 in UTC; a time beyond what a date can hold (only rows written before times
    were checked can carry one) shows as the nearest that can."""
    if seconds is None:
        return None
    bounded = min(max(seconds, EARLIEST_TIME), LATEST_TIME)
    return datetime.fromtimestamp(bounded, UTC).isoformat().replace("+00:00", "Z")


def written(outcome: WriteOutcome, supersedes: Sequence[Sequence[str]] = ()) -> wire.EventsResponse:
    """The answer to a write; ``supersedes``: what each event asked to replace, in order."""
    replaced = list(supersedes)
    return wire.EventsResponse(
        ids=outcome.ids,
        embedded=outcome.embedded,
        indexed=outcome.indexed,
        written=[
            wire.WrittenEntry(
                id=entry_id,
                duplicate_of=outcome.duplicate_of.get(n),
                supersedes=list(dict.fromkeys(replaced[n])) if n < len(replaced) else [],
                similar=[
                    wire.SimilarEntry(s.id, s.tier, s.similarity)
                    for s in outcome.similar.get(n, [])
                ],
            )
            for n, entry_id in enumerate(outcome.ids)
        ],
    )


def entry_out(found: Found) -> wire.EntryDetail:
    return wire.EntryDetail(
        **_entry_fields(found.entry, found.now),
        supersedes=[replacement_out(link) for link in found.chain.supersedes],
        replaced_by=[replacement_out(link) for link in found.chain.superseded_by],
    )


def replacement_out(link: Link, *, text: bool = False) -> wire.Replacement:
    return wire.Replacement(
        id=link.id,
        at=format_time(link.at) or "",
        actor=link.actor,
        text=link.text if text else None,
    )


def history_out(history: EntryHistory) -> wire.HistoryResponse:
    return wire.HistoryResponse(
        id=history.id,
        namespace=history.namespace,
        history=[
            wire.HistoryItem(
                at=format_time(e.at) or "", action=e.action, actor=e.actor, detail=e.detail
            )
            for e in history.events
        ],
    )


def search_out(searched: Searched) -> wire.SearchResponse:
    outcome, recall = searched.outcome, searched.recall
    local = [hit_out(r, searched.now, searched.text_chars) for r in outcome.results]
    recalled = recall.hits if recall is not None else []
    return wire.SearchResponse(
        results=[*local, *(recalled_out(r, searched.now, searched.text_chars) for r in recalled)],
        mode=outcome.mode,
        took_ms=searched.took_ms,
        degraded=searched.degraded,
        relaxed=outcome.relaxed,
        superseded=[wire.LeftOut(e.id, e.superseded_by or "") for e in outcome.superseded],
        upstream=asked_out(recall),
        dropped=outcome.dropped,
    )


def recalled_out(hit: Recalled, now: float, text_chars: int) -> wire.SearchHit:
    """An upstream's hit, marked as such, with the upstream's id and text as it gave them."""
    return wire.SearchHit(
        **_entry_fields(hit.entry, now, text_chars),
        snippet=hit.snippet,
        score=hit.score,
        source="upstream",
        upstream=upstream_ref(hit),
    )


def upstream_ref(hit: Recalled) -> wire.UpstreamRef:
    return wire.UpstreamRef(name=hit.source, namespace=hit.namespace, id=hit.entry.id)


def asked_out(recall: Recall | None) -> wire.UpstreamAsked | None:
    if recall is None:
        return None
    r = recall.report
    return wire.UpstreamAsked(
        name=r.name,
        outcome=r.outcome,
        results=len(r.hits),
        attempts=r.attempts,
        took_ms=r.took_ms,
        kept=recall.kept,
        refused=len(recall.refused),
        error=r.error,
    )


def hit_out(result: SearchResult, now: float, text_chars: int) -> wire.SearchHit:
    explain = None
    if result.explain is not None:
        explain = {
            name: wire.ListRank(rank=e.rank, score=round(e.score, 6))
            for name, e in result.explain.items()
        }
    place = _place(result.entry)
    if place:
        place["score_pct"] = round(result.score * 100)
    return wire.SearchHit(
        **place,
        **_entry_fields(result.entry, now, text_chars),
        snippet=result.snippet,
        score=result.score,
        explain=explain,
    )


def retrieve_out(retrieved: Retrieved) -> wire.RetrieveResponse:
    answer, now = retrieved.answer, retrieved.now
    return wire.RetrieveResponse(
        interaction_id=answer.interaction_id,
        entries=[
            *(
                retrieved_out(
                    a, now, retrieved.text_chars, retrieved.chains.get(a.result.entry.key)
                )
                for a in answer.entries
            ),
            *(
                retrieved_out(a, now, retrieved.text_chars, upstream=hit)
                for a, hit in retrieved.recalled
            ),
        ],
        strong_match=answer.strong_match,
        answer_confidence=answer.confidence,
        best_relevance=answer.best_relevance,
        threshold=retrieved.threshold,
        reasoning_patterns=[retrieved_out(a, now, retrieved.text_chars) for a in answer.patterns],
        took_ms=answer.took_ms,
        degraded=retrieved.degraded,
        upstream=asked_out(retrieved.recall),
    )


def context_out(made: Contextualised) -> wire.ContextResponse:
    block, answer = made.block, made.answer
    return wire.ContextResponse(
        interaction_id=answer.interaction_id,
        context=block.text,
        tokens=block.tokens,
        max_tokens=made.max_tokens,
        entries=[context_item(i) for i in block.entries],
        reasoning_patterns=[context_item(i) for i in block.patterns],
        left_out=block.left_out,
        nothing_relevant=block.nothing_relevant,
        strong_match=answer.strong_match,
        answer_confidence=answer.confidence,
        took_ms=answer.took_ms,
        degraded=made.degraded,
    )


def context_item(item: Included) -> wire.ContextItem:
    source = item.source
    return wire.ContextItem(
        id=source.id,
        tier=source.tier,
        timestamp=format_time(source.timestamp) or "",
        citation=item.citation,
        text=item.text,
        score=source.score,
        speaker=source.speaker,
        type=source.type,
        cut=item.cut,
        replaces=list(source.replaces),
        folded=list(item.folded),
    )


def retrieved_out(
    answered: Answered,
    now: float,
    text_chars: int,
    chain: Chain | None = None,
    *,
    upstream: Recalled | None = None,
) -> wire.RetrievedEntry:
    """An entry of an answer; ``chain``: what it replaced; ``upstream``: the upstream's hit
    it stands for."""
    parts = {name: round(value, 6) for name, value in answered.parts.items()}
    marks: dict[str, Any] = {}
    if upstream is not None:
        marks = {"source": "upstream", "upstream": upstream_ref(upstream)}
    replaced = chain.supersedes if chain is not None else []
    return wire.RetrievedEntry(
        supersedes=[replacement_out(link, text=True) for link in replaced],
        **({} if upstream is not None else _place(answered.result.entry)),
        **_entry_fields(answered.result.entry, now, text_chars),
        snippet=answered.result.snippet,
        relevance_score=answered.relevance,
        score=answered.score,
        parts=wire.AnswerParts(**parts),
        **marks,
    )


def feedback_out(feedback: Feedback) -> wire.FeedbackResponse:
    return wire.FeedbackResponse(
        feedback.interaction_id, feedback.rating, format_time(feedback.at) or ""
    )


def daily_out(report: DailyReport) -> wire.DailyReportResponse:
    return wire.DailyReportResponse(
        date=datetime.fromtimestamp(report.start, UTC).date().isoformat(),
        namespace=report.namespace,
        questions=report.questions,
        strong_matches=report.strong_matches,
        strong_match_rate=report.strong_match_rate,
        feedback=report.feedback,
        unanswered=[
            wire.UnansweredQuestion(
                i.id,
                i.question,
                i.asker,
                format_time(i.at) or "",
                i.best_relevance,
                i.answer_confidence,
            )
            for i in report.unanswered[:UNANSWERED_SHOWN]
        ],
        unanswered_total=len(report.unanswered),
        revisions=[
            wire.Revision(
                id=key.split(":", 1)[1],
                superseded_by=event.detail or "",
                at=format_time(event.at) or "",
                actor=event.actor,
            )
            for key, event in report.revisions
        ],
    )


def routine_out(report: RoutineReport) -> wire.RoutineCheckResponse:
    check = report.check
    return wire.RoutineCheckResponse(
        similar=check.similar,
        is_routine=check.is_routine,
        similarity_threshold=report.similarity_threshold,
        min_similar=report.min_similar,
        examples=[
            wire.SimilarExecution(
                r.entry.id, r.entry.text, format_time(r.entry.timestamp) or "", similarity
            )
            for r, similarity in check.examples
        ],
        degraded=report.degraded,
    )


def promoted_out(promoted: Promoted) -> wire.PromoteResponse:
    return wire.PromoteResponse(promoted.namespace, promoted.ids)


def job_out(job: JobView) -> wire.JobOut:
    return wire.JobOut(
        name=job.name,
        schedule=job.schedule,
        next_run=format_time(job.next_run),
        last_started=format_time(job.last_started),
        last_finished=format_time(job.last_finished),
        last_result=job.last_result,
        last_error=job.last_error,
        runs=job.runs,
        last_replica=job.last_replica,
        per_replica=job.per_replica,
        recent=[
            wire.JobRunOut(
                replica=run.replica,
                started_at=format_time(run.started_at) or "",
                finished_at=format_time(run.finished_at),
                slot=format_time(run.slot),
                error=run.error,
            )
            for run in job.recent
        ],
    )


def rebuild_out(status: RebuildStatus) -> wire.RebuildOut:
    return wire.RebuildOut(
        state=status.state,  # type: ignore[arg-type]
        done=status.done,
        total=status.total,
        started_at=format_time(status.started_at),
        finished_at=format_time(status.finished_at),
        error=status.error,
    )


def collection_out(view: CollectionView) -> wire.CollectionOut:
    c = view.collection
    return wire.CollectionOut(
        name=c.name,
        namespace=c.namespace,
        path=c.path,
        mask=c.mask,
        tier=c.tier,  # type: ignore[arg-type]
        files=view.files,
        created_at=format_time(c.created_at) or "",
        scanned_at=format_time(c.scanned_at),
        scanning=wire.ScanProgress(*view.scanning) if view.scanning else None,
    )


def scan_out(scanned: Scanned) -> wire.ScanOut:
    report = scanned.report
    return wire.ScanOut(
        collection=collection_out(scanned.view),
        added=report.added,
        changed=report.changed,
        removed=report.removed,
        unchanged=report.unchanged,
        chunks=report.chunks,
        skipped=[
            wire.Skipped(f"{scanned.view.collection.name}/{path}".removesuffix("/."), reason)
            for path, reason in report.skipped
        ],
    )


def document_out(document: Document) -> wire.DocumentOut:
    first = document.first_line
    shown = document.lines
    width = len(str(first + len(shown)))
    numbered = "\n".join(f"{n:>{width}}| {line}" for n, line in enumerate(shown, start=first))
    return wire.DocumentOut(
        path=document.path,
        title=document.title,
        first_line=first,
        last_line=first + len(shown) - 1,
        total_lines=document.total_lines,
        text=numbered,
    )


def documents_out(found: Documents) -> wire.DocumentsResponse:
    return wire.DocumentsResponse(
        [document_out(d) for d in found.documents],
        [wire.Skipped(path, reason) for path, reason in found.skipped],
    )


def quarantine_out(aside: list[Quarantined]) -> wire.QuarantineResponse:
    return wire.QuarantineResponse(
        [
            wire.QuarantinedEntry(
                key_namespace(q.key), q.key.split(":", 1)[1], q.reason, format_time(q.at) or ""
            )
            for q in aside
        ]
    )


def health_out(health: Health) -> wire.Health:
    return wire.Health(
        health.status,  # type: ignore[arg-type]
        health.model,
        health.reranker,
        health.stores,
        health.degraded,
        health.model_backend,
        None
        if health.replica is None
        else wire.ReplicaHealth(
            name=health.replica.name,
            mode=health.replica.mode,  # type: ignore[arg-type]
            leads_jobs=health.replica.leads_jobs,
            lag_seconds=round(health.replica.lag.seconds, 3),
            changes_behind=health.replica.lag.changes,
        ),
        {
            name: wire.EngineHealth(
                state=e.state, since=None if e.since is None else round(e.since, 3), error=e.error
            )
            for name, e in health.engines.items()
        },
        upstream_health(health.upstream),
    )


def upstream_health(snapshot: UpstreamSnapshot | None) -> wire.UpstreamHealth | None:
    if snapshot is None:
        return None
    b = snapshot.breaker
    return wire.UpstreamHealth(
        name=snapshot.name,
        breaker=wire.BreakerHealth(
            state=b.state,
            failures=b.failures,
            trips=b.trips,
            rejected=b.rejected,
            opened_at=None if b.opened_at is None else round(b.opened_at, 3),
            retry_at=None if b.retry_at is None else round(b.retry_at, 3),
            last_error=b.last_error,
        ),
        asked=snapshot.asked,
        answered=snapshot.answered,
        failed=snapshot.failed,
        circuit_open=snapshot.circuit_open,
        busy=snapshot.busy,
        attempts=snapshot.attempts,
    )


def stats_out(stats: Stats) -> wire.StatsResponse:
    t = stats.totals
    return wire.StatsResponse(
        [
            wire.NamespaceStats(
                ns,
                {
                    tier: wire.TierStats(
                        active=s.active,
                        archived=s.archived,
                        vectors=s.vectors,
                        tokens_embedded=s.tokens_embedded,
                        tokens=s.tokens,
                    )
                    for tier, s in tiers.items()
                },
                _work_out(stats.read_passages.get(ns, ModelWork())),
            )
            for ns, tiers in stats.namespaces.items()
        ],
        wire.Totals(
            entries=t.entries,
            vectors=t.vectors,
            tokens_embedded=t.tokens_embedded,
            tokens_full_rag=t.tokens_full_rag,
            embedding_avoided=t.embedding_avoided,
            quarantined=t.quarantined,
            tokens_read_time=t.tokens_read_time,
        ),
        stats.disk,
        None
        if (read := stats.read_time) is None
        else wire.ReadTimeWork(
            since=format_time(read.since) or "",
            queries=_work_out(read.queries) if read.queries is not None else None,
            passages=_work_out(read.passages),
        ),
    )


def _work_out(work: ModelWork) -> wire.ModelWork:
    return wire.ModelWork(calls=work.calls, texts=work.texts, tokens=work.tokens)


def _place(entry: Entry) -> dict[str, Any]:
    """Where a chunk of a collection's file sits: its document path, title and lines."""
    meta = entry.metadata
    if "file" not in meta:
        return {}
    return {
        "file": meta["file"],
        "title": meta.get("title"),
        "lines": f"{meta.get('line_start')}-{meta.get('line_end')}",
    }


def _entry_fields(entry: Entry, now: float, text_chars: int | None = None) -> dict[str, Any]:
    """Wire fields of an entry; an expired one shows as archived, as searches treat it, and
    so does a digest, which stands for archived entries (and is found by default). With
    ``text_chars``, the text is cut there and ``truncated`` says so."""
    cut = text_chars is not None and len(entry.text) > text_chars
    fields = {"truncated": True} if cut else {}
    return fields | {
        "id": entry.id,
        "namespace": entry.namespace,
        "tier": entry.tier,
        "text": entry.text[:text_chars] if cut else entry.text,
        "timestamp": format_time(entry.timestamp),
        "speaker": entry.speaker,
        "role": entry.role,
        "chain_type": entry.chain_type,
        "tags": list(entry.tags),
        "expires_at": format_time(entry.expires_at),
        "archived": entry.archived or not is_live(entry.expires_at, now) or entry.kind == DIGEST,
        "metadata": dict(entry.metadata),
        "kind": entry.kind,
        "type": entry.type,
        "confidence": entry.confidence,
        "variants": list(entry.variants),
        "thread": entry.thread,
        "superseded_by": entry.superseded_by,
    }
