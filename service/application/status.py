"""Health of the service, and what it stores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from service.auth import Principal
from service.domain.models import Quarantined, key_namespace
from service.domain.ports import Embedder, KeywordStore, Ledger, VectorStore
from service.domain.retrieval import Retriever
from service.domain.stats import Stats, summarize

QUARANTINE_SHOWN = 1000
"""Most quarantined entries listed or counted."""


def may_see(principal: Principal, aside: Quarantined) -> bool:
    return principal.may_use(key_namespace(aside.key))


@dataclass(frozen=True)
class Health:
    status: str
    """ok, or degraded when anything below is missing."""
    model: str | None
    reranker: str | None
    stores: dict[str, Any]
    degraded: list[str]
    model_backend: str | None


class StatusUseCases:
    def __init__(
        self,
        ledger: Ledger,
        vectors: VectorStore,
        keywords: KeywordStore,
        embedder: Embedder | None,
        retriever: Retriever,
        degraded: list[str],
        disk_usage: Callable[[], dict[str, int | None]],
    ) -> None:
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.retriever = retriever
        self.degraded = degraded
        self.disk_usage = disk_usage

    def health(self) -> Health:
        """What the service runs with; answers even when a store does not."""
        stores: dict[str, Any] = {"ledger": self.ledger.count()}
        degraded = list(self.degraded)
        try:
            self.vectors.health()
            stores["chroma"] = {t: self.vectors.count(t) for t in ("A", "C")}
        except Exception as exc:  # report, do not fail: health must answer
            degraded.append(f"chroma unreachable: {exc}")
            stores["chroma"] = "unreachable"
        stores["tantivy"] = self.keywords.count()
        aside = len(self.ledger.quarantined(limit=QUARANTINE_SHOWN))
        stores["quarantined"] = aside
        if aside:
            degraded.append(f"{aside} entries set aside in quarantine: see /v1/admin/quarantine")
        reranker = self.retriever.reranker
        if self.retriever.reranker_problem:
            degraded.append(self.retriever.reranker_problem)
        return Health(
            "degraded" if degraded else "ok",
            self.embedder.name if self.embedder is not None else None,
            reranker.name if reranker is not None else None,
            stores,
            degraded,
            self.embedder.backend if self.embedder is not None else None,
        )

    def stats(self, principal: Principal) -> Stats:
        """Entries, vectors and tokens per namespace and tier; an agent key sees its
        namespaces."""
        summary = summarize(self.ledger.stats(), principal.may_use)
        aside = [q for q in self.ledger.quarantined(QUARANTINE_SHOWN) if may_see(principal, q)]
        totals = replace(summary.totals, quarantined=len(aside))
        return replace(summary, totals=totals, disk=self.disk_usage())

    def quarantined(self, principal: Principal) -> list[Quarantined]:
        """Entries set aside because they could not be indexed, with the reason (admins)."""
        principal.require_admin()
        return [q for q in self.ledger.quarantined(QUARANTINE_SHOWN) if may_see(principal, q)]
