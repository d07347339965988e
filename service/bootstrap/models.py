"""The models: the embedder, loaded before the stores open, and the cross-encoder, loaded
off the start-up path."""

from __future__ import annotations

import logging

from service.domain.ports import Embedder
from service.domain.search.searcher import Searcher
from service.settings import Settings

log = logging.getLogger("strata")

NO_MODEL = (
    "embedding model unavailable ({}): searches use BM25 only; tier A and C events are "
    "stored and embedded once a model loads"
)


def load_embedder(settings: Settings) -> tuple[Embedder | None, list[str]]:
    """The configured embedding model, or None and why."""
    from service.stores.embedder import open_embedder

    try:
        embedder = open_embedder(
            settings.models.embedding_model,
            settings.models.embedding_backend,
            settings.storage.model_cache_dir,
            settings.models.threads,
        )
        return embedder, []
    except Exception as exc:  # the service still answers BM25 searches without a model
        log.error("embedding model could not be loaded: %s", exc)
        return None, [NO_MODEL.format(exc)]


def load_reranker(settings: Settings, searcher: Searcher) -> None:
    """Load the cross-encoder; searches rerank once it is in."""
    models = settings.models
    if not models.reranker_model:
        searcher.reranker_problem = "no reranker configured (STRATA_RERANKER_MODEL is empty)"
        return
    from service.stores.reranker import open_reranker

    try:
        reranker = open_reranker(
            models.reranker_model,
            models.reranker_backend,
            settings.storage.model_cache_dir,
            threads=models.threads,
            max_length=models.rerank_max_tokens,
        )
        searcher.reranker = reranker
        searcher.reranker_problem = None
        log.info("reranker %s loaded (%s)", models.reranker_model, reranker.backend)
    except Exception as exc:  # run without reranking, and say so
        wanted = settings.search.rerank == "on"
        report = log.error if wanted else log.info
        report("reranker %s could not be loaded: %s", models.reranker_model, exc)
        searcher.reranker_problem = f"reranker {models.reranker_model} unavailable ({exc})"
