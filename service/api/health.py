"""Liveness and what the service runs with."""

from __future__ import annotations

from typing import Any

from litestar import get

from schemas import wire
from service.api.deps import ResourcesDep


@get("/health", sync_to_thread=True, tags=["health"])
def health(resources: ResourcesDep) -> wire.Health:
    stores: dict[str, Any] = {"ledger": resources.ledger.count()}
    degraded = list(resources.degraded)
    try:
        resources.vectors.health()
        stores["chroma"] = {t: resources.vectors.count(t) for t in ("A", "C")}
    except Exception as exc:  # report, do not fail: health must answer
        degraded.append(f"chroma unreachable: {exc}")
        stores["chroma"] = "unreachable"
    stores["tantivy"] = resources.keywords.count()
    model = resources.embedder.name if resources.embedder is not None else None
    reranker = resources.retriever.reranker
    if resources.retriever.reranker_problem:
        degraded.append(resources.retriever.reranker_problem)
    return wire.Health(
        "degraded" if degraded else "ok",
        model,
        reranker.name if reranker is not None else None,
        stores,
        degraded,
        resources.embedder.backend if resources.embedder is not None else None,
    )
