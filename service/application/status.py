"""Health of the service, and what it stores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from service.application.auth import Principal
from service.application.schedule import Schedule
from service.domain.cluster.replication import Follower, Lag
from service.domain.entries import Quarantined, key_namespace
from service.domain.namespaces.stats import Stats, summarize
from service.domain.ports import Embedder, Entries, IndexState, Inventory, KeywordStore, VectorStore
from service.domain.recall import UpstreamRecall, UpstreamSnapshot
from service.domain.search.searcher import Searcher
from service.domain.search.usage import ReadModelUsage
from service.lib.engines import EngineState


class StatusLedger(Entries, IndexState, Inventory, Protocol):
    """What the status reads of the ledger: its entries counted, set aside, summed up."""


QUARANTINE_SHOWN = 1000
"""Most quarantined entries listed or counted."""


def may_see(principal: Principal, aside: Quarantined) -> bool:
    return principal.may_use(key_namespace(aside.key))


@dataclass(frozen=True)
class Replica:
    """This process among the replicas of its ledger: its name, and the follower of the
    change log when it shares the ledger with others (None in embedded mode)."""

    name: str
    follower: Follower | None = None


@dataclass(frozen=True)
class ReplicaStatus:
    name: str
    mode: str
    """embedded or cluster."""
    leads_jobs: bool
    lag: Lag


@dataclass(frozen=True)
class Health:
    status: str
    """ok, or degraded when anything below is missing."""
    model: str | None
    reranker: str | None
    stores: dict[str, Any]
    degraded: list[str]
    model_backend: str | None
    replica: ReplicaStatus | None = None
    engines: dict[str, EngineState] = field(default_factory=dict)
    """Each engine's state: ledger, vector_store, keyword_index, model, reranker, upstream."""
    upstream: UpstreamSnapshot | None = None
    """The upstream's breaker and recall counts, when one is configured."""


@dataclass(eq=False)
class StatusUseCases:
    ledger: StatusLedger
    vectors: VectorStore
    keywords: KeywordStore
    embedder: Embedder | None
    searcher: Searcher
    degraded: list[str]
    disk_usage: Callable[[], dict[str, int | None]]
    replica: Replica
    scheduler: Schedule
    usage: ReadModelUsage | None = None
    """The model work of reads, shown with the stats; None: not shown."""
    upstream: UpstreamRecall | None = None
    """The recall from an upstream, whose breaker ``health`` shows."""

    def health(self) -> Health:
        """What the service runs with, and each engine's state; answers even when a store
        does not. ``degraded`` lists only what the operator configured and lost."""
        stores: dict[str, Any] = {}
        degraded = list(self.degraded)
        engines = self.searcher.engines
        try:
            stores["ledger"] = self.ledger.count()
            aside = len(self.ledger.quarantined(limit=QUARANTINE_SHOWN))
            engines.answered("ledger")
        except Exception as exc:  # a database server may be away: say so, do not fail
            engines.failed("ledger", str(exc))
            degraded.append(f"ledger unreachable: {exc}")
            stores["ledger"], aside = "unreachable", 0
        try:
            self.vectors.health()
            stores["chroma"] = {t: self.vectors.count(t) for t in ("A", "C")}
            engines.answered("vector store")
        except Exception as exc:  # report, do not fail: health must answer
            engines.failed("vector store", str(exc))
            degraded.append(f"chroma unreachable: {exc}")
            stores["chroma"] = "unreachable"
        stores["tantivy"] = self.keywords.count()
        stores["quarantined"] = aside
        if aside:
            degraded.append(f"{aside} entries set aside in quarantine: see /v1/admin/quarantine")
        model = engines.state("model")
        if self.embedder is not None and model.state == "unavailable":
            degraded.append(f"model unavailable since {model.since:.0f}: {model.error}")
        reranker = self.searcher.reranker
        rerank = self._reranker()
        if rerank.state == "unavailable":
            degraded.append(rerank.error or "reranker unavailable")
        replica = self._replica(degraded)
        upstream = self.upstream.snapshot() if self.upstream is not None else None
        if upstream is not None and upstream.breaker.state != "closed":
            degraded.append(
                f"upstream {upstream.name} not asked until {upstream.breaker.retry_at:.0f}: "
                f"its circuit breaker opened after {upstream.breaker.failures} failed recalls "
                f"({upstream.breaker.last_error})"
            )
        return Health(
            "degraded" if degraded else "ok",
            self.embedder.name if self.embedder is not None else None,
            reranker.name if reranker is not None else None,
            stores,
            degraded,
            self.embedder.backend if self.embedder is not None else None,
            replica,
            {
                "ledger": engines.state("ledger"),
                "vector_store": engines.state("vector store"),
                "keyword_index": EngineState("ok"),
                "model": model
                if self.embedder is not None
                else EngineState(
                    "unavailable", None, "no embedding model loaded: keyword search only"
                ),
                "reranker": rerank,
                "upstream": _upstream_state(upstream),
            },
            upstream,
        )

    def upstream_snapshot(self) -> UpstreamSnapshot | None:
        """The upstream's breaker and counts (for metrics); None without an upstream."""
        return self.upstream.snapshot() if self.upstream is not None else None

    def _reranker(self) -> EngineState:
        """Loaded; or, when none is: unavailable if searches rerank by default, else off
        (not configured, or not installed), which is not a fault."""
        searcher = self.searcher
        if searcher.reranker is not None:
            return EngineState("ok")
        problem = searcher.reranker_problem or "no reranker loaded"
        return EngineState("unavailable" if searcher.rerank_default else "off", None, problem)

    def _replica(self, degraded: list[str]) -> ReplicaStatus:
        follower = self.replica.follower
        lag = Lag(0.0, 0, 0)
        if follower is not None:
            if follower.problem:
                degraded.append(f"keyword index not following the ledger: {follower.problem}")
            try:
                lag = follower.lag()
            except Exception as exc:  # report, do not fail: health must answer
                degraded.append(f"change log unreadable: {exc}")
                lag = Lag(0.0, 0, follower.applied)
        return ReplicaStatus(
            self.replica.name,
            "embedded" if follower is None else "cluster",
            self.scheduler.leading,
            lag,
        )

    def stats(self, principal: Principal) -> Stats:
        """Entries, vectors and tokens per namespace and tier, and the model work of reads
        since the process started; an agent key sees its namespaces."""
        summary = summarize(
            self.ledger.stats(),
            principal.may_use,
            self.usage.snapshot() if self.usage is not None else None,
            every_namespace=principal.namespaces is None,
        )
        aside = [q for q in self.ledger.quarantined(QUARANTINE_SHOWN) if may_see(principal, q)]
        totals = replace(summary.totals, quarantined=len(aside))
        return replace(summary, totals=totals, disk=self.disk_usage())

    def quarantined(self, principal: Principal) -> list[Quarantined]:
        """Entries set aside because they could not be indexed, with the reason (admins)."""
        principal.require_admin()
        return [q for q in self.ledger.quarantined(QUARANTINE_SHOWN) if may_see(principal, q)]


def _upstream_state(upstream: UpstreamSnapshot | None) -> EngineState:
    """``off`` when none is configured; unavailable while its breaker is not closed."""
    if upstream is None:
        return EngineState("off", None, "no upstream configured (STRATA_UPSTREAM_URL)")
    breaker = upstream.breaker
    if breaker.state == "closed":
        return EngineState("ok")
    return EngineState("unavailable", breaker.opened_at, breaker.last_error)
