"""Health and statistics as the wire types of ``schemas.wire.status``."""

from __future__ import annotations

from schemas import wire
from service.application.status import Health
from service.domain.namespaces.stats import Stats
from service.domain.recall import UpstreamSnapshot
from service.domain.search.usage import ModelWork
from service.present.times import format_time


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
