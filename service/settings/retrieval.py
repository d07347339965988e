"""How entries are embedded, chunked, searched and ranked into answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from msgspec import Meta, field

from service.errors import ConfigError
from service.settings.base import Backend, Count, Days, Group, Share, Switch, Weight

_TIERS = ("A", "C", "E")

_ANSWER_PARTS = ("relevance", "type", "confidence", "freshness")
RELEVANCE_FLOOR = 0.002
"""The default of STRATA_MIN_SCORE, chosen on the development sets: at 0.002 it costs R@10
0.002 to 0.003 against no floor, while every set's questions asked in another set's namespaces
get no result at least 90 % of the time; at 0.003 (offline) that cost passes the 0.005 the
floor is allowed (docs/benchmarks.md)."""


class ModelSettings(Group, frozen=True, rename={"threads": "model_threads"}):
    embedding_model: str = ""
    """Sentence-transformers model name or path. Empty: the bundled all-MiniLM-L6-v2."""
    embedding_backend: Backend = "onnx-int8"
    """How the model runs: ``onnx-int8`` (ONNX Runtime with int8 weights, exported once; each
    text is embedded on its own, so its vector never depends on the texts written or read
    with it), ``onnx`` (ONNX Runtime, the same vectors as torch) or ``torch``."""
    threads: Annotated[int, Meta(ge=0)] = 0
    """Threads one model call may use (one batch of texts, or with ``onnx-int8`` as many texts
    side by side); 0: one per core. A search's query is always embedded on one thread, and so
    is a write's batch (ONNX backends) begun while other callers ask: they keep the other
    cores."""
    reranker_model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    """Cross-encoder path, or name in the local model cache, for reranking; empty: none."""
    reranker_backend: Backend = "onnx"
    """How the cross-encoder runs: ``onnx`` (ONNX Runtime, the scores torch gives),
    ``onnx-int8`` (int8 weights, faster, slightly different scores; each pair scored on its
    own, so a passage's score never depends on the candidates beside it) or ``torch``."""
    rerank_max_tokens: Annotated[int, Meta(ge=4)] = 256
    """Tokens of question and passage the cross-encoder reads; its cost grows with them."""


class SearchSettings(Group, frozen=True):
    fusion: Literal["learned", "score", "rrf"] = "learned"
    """How the lists merge: ``learned`` (a fitted model), ``score`` (a blend) or ``rrf``."""
    ranking_model: str = ""
    """``learned`` fusion's model, from ``strata calibrate``; empty: the one shipped."""
    keyword_share: Share = 0.7
    """Share of the BM25 score in ``score`` fusion; the cosine has the rest."""
    rrf_k: Annotated[float, Meta(gt=0)] = 10.0
    """The k of reciprocal rank fusion, 1 / (k + rank); 10 measured best on both dev sets."""
    bm25_weight: Weight = 1.0
    """Weight of the BM25 list in fusion."""
    vector_weight: Weight = 1.0
    """Weight of the vector list in fusion."""
    candidates: Count = 50
    """Fewest candidates taken from each list before fusion (at least 3 x limit)."""
    rerank: Switch = "off"
    """Rerank searches unless a request says otherwise: ``on`` or ``off``."""
    rerank_candidates: Count = 30
    """How many of the best fused candidates the cross-encoder rescores."""
    tier_weights: Mapping[str, Annotated[float, Meta(gt=0)]] = field(
        default_factory=lambda: {"A": 1.0, "C": 1.0, "E": 1.0}
    )
    """Score weight per tier as JSON; scores are scaled by weight / largest weight. Equal by
    default: a tier decides what is embedded and kept, not how relevant an entry is."""
    c_recency_days: Days = 0.0
    """Tier C scores decay as exp(-age in days / this); 0 (the default) turns decay off."""
    mmr_lambda: Annotated[float, Meta(gt=0, le=1)] = 1.0
    """MMR trade-off in (0, 1]: scores are scaled by 1 - (1 - lambda) x the word overlap
    with a better result, so near-duplicates sink; 1 turns it off."""
    min_score: Share = RELEVANCE_FLOOR
    """The relevance floor: results scoring below it are left out (and counted as
    ``dropped``), so a search can answer that nothing is relevant. With ``learned`` fusion a
    score is the probability that an entry is relevant. A request's ``min_score`` overrides
    it (0 turns it off); the relaxed retry keeps the lower of the two."""
    unembedded_candidates: Annotated[int, Meta(ge=0, le=200)] = 0
    """``score`` fusion only: how many of the best BM25 candidates without a vector get their
    best chunk embedded at query time (a model call per search); 0: they count a cosine 0."""
    query_cache_size: Annotated[int, Meta(ge=0)] = 512
    """Search outcomes kept for repeated queries; 0 turns the cache off."""
    query_cache_seconds: Days = 30.0
    """A cached outcome is used for at most this long (writes to its namespace drop it)."""
    query_cache_bytes: Annotated[int, Meta(ge=0)] = 64 * 1024 * 1024
    """Most memory the cached outcomes may take (their texts, snippets and passages)."""

    @property
    def list_weights(self) -> dict[str, float]:
        """Weight of each result list in rank fusion."""
        return {"bm25": self.bm25_weight, "vector": self.vector_weight}

    def __post_init__(self) -> None:
        if unknown := sorted(set(self.tier_weights) - set(_TIERS)):
            raise ConfigError(f"STRATA_TIER_WEIGHTS takes tiers A, C and E, not {unknown}")


class ChunkingSettings(
    Group, frozen=True, rename={"words": "chunk_words", "overlap": "chunk_overlap"}
):
    words: Count = 150
    """Words per chunk for embedding; fits the model's 256-token window."""
    overlap: Annotated[int, Meta(ge=0)] = 30
    """Words shared by consecutive chunks."""
    max_chunks: Count = 2000
    """Most chunks one entry's text may make; an event with more is refused (422), as
    every chunk costs a model call to write and a vector to keep and to search."""
    similar_threshold: Annotated[float, Meta(ge=0, le=1)] = 0.6
    """Cosine of two entries' first chunks at or above which a write of tier A or C names
    the older one among its ``similar`` entries (writes of up to 32 events)."""

    def __post_init__(self) -> None:
        if self.overlap >= self.words:
            raise ConfigError("STRATA_CHUNK_OVERLAP must be below STRATA_CHUNK_WORDS")


class AnswerSettings(Group, frozen=True, rename={"weights": "answer_weights"}):
    strong_match_threshold: Share | None = None
    """``/v1/retrieve`` says ``strong_match`` when ``answer_confidence`` reaches this;
    unset: the threshold the calibration recommends."""
    calibration: str = ""
    """A calibration of ``answer_confidence`` written by ``strata calibrate --output``;
    empty: the one shipped, fitted on the development sets."""
    weights: Mapping[str, Weight] = field(
        default_factory=lambda: {
            "relevance": 0.95,
            "type": 0.0,
            "confidence": 0.05,
            "freshness": 0.0,
        }
    )
    """How ``/v1/retrieve`` blends an entry's relevance, type, confidence and freshness. The
    relevance already weighs an entry's kind against what the question asks for; a type
    weight lifts the types of ``type_weights`` for every question alike. Freshness is off by
    default: the relevance is a probability, often a few hundredths in a weak pool, so any
    fixed lift for recent entries outweighs it there."""
    type_weights: Mapping[str, Share] = field(
        default_factory=lambda: {
            "decision": 1.0,
            "framework": 0.9,
            "fact": 0.8,
            "position": 0.6,
            "reaction": 0.4,
        }
    )
    """Weight in [0, 1] per entry ``type`` for ``/v1/retrieve``; other types count 0.5."""
    freshness_days: Annotated[float, Meta(gt=0)] = 30.0
    """Freshness in ``/v1/retrieve`` is exp(-age in days / this)."""
    routine_similarity: Share = 0.7
    """``/v1/routine-check``: cosine at or above which a tier E execution counts as similar."""
    routine_min_similar: Count = 5
    """``/v1/routine-check``: similar executions needed for ``is_routine``."""

    def __post_init__(self) -> None:
        if sorted(self.weights) != sorted(_ANSWER_PARTS):
            raise ConfigError(
                "STRATA_ANSWER_WEIGHTS takes a weight for each of relevance, type, confidence "
                f"and freshness, not {sorted(self.weights)}"
            )
