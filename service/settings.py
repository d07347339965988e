"""Service settings, read from the environment (prefix ``STRATA_``) and CLI flags."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from service.errors import ConfigError

PREFIX = "STRATA_"
EMPTY_MEANS_OFF = frozenset({"reranker_model"})


@dataclass(frozen=True)
class Settings:
    """Every knob of the service. Each field maps to ``STRATA_<FIELD NAME UPPERCASED>``."""

    host: str = "127.0.0.1"
    """Interface to bind. Without API keys only loopback addresses are allowed."""
    port: int = 8080
    """TCP port to listen on."""
    data_dir: Path = Path("strata-data")
    """Directory holding the ledger, the Tantivy index and the embedded Chroma store."""
    chroma_url: str = ""
    """URL of a Chroma server (``http://host:port``). Empty: embedded Chroma in data_dir."""
    embedding_model: str = ""
    """Sentence-transformers model name or path. Empty: the bundled all-MiniLM-L6-v2."""
    embedding_backend: str = "onnx-int8"
    """How the model runs: ``onnx-int8`` (ONNX Runtime with int8 weights, exported once),
    ``onnx`` (ONNX Runtime, the same vectors as torch) or ``torch``."""
    model_threads: int = 0
    """Threads one batch of texts may use in a model call; 0: one per core. A search's query
    is always embedded on one thread."""
    model_cache: str = ""
    """Where exported ONNX models are kept; empty: ``models`` in the data directory."""

    api_keys: str = ""
    """API keys as ``key=role[:ns1,ns2];...`` with role ``agent`` or ``admin``."""
    api_keys_file: str = ""
    """JSON file of API keys: ``[{"key": ..., "role": ..., "namespaces": [...]}]``."""
    max_batch: int = 1000
    """Most events accepted by one ``POST /v1/events``; more get 413."""
    max_body_bytes: int = 16 * 1024 * 1024
    """Largest request body accepted; more get 413."""
    c_ttl_days: float = 7.0
    """Default lifetime of tier C entries, in days from the event timestamp."""
    ttl_by_chain_type: Mapping[str, float] = field(default_factory=dict)
    """Per ``chain_type`` lifetime of tier C entries, as JSON: ``{"standup": 2}``."""
    fusion: str = "score"
    """How BM25 and vector results merge: ``score`` (BM25 over its bound for the query and
    cosine, mixed by STRATA_KEYWORD_SHARE) or ``rrf`` (reciprocal rank fusion)."""
    keyword_share: float = 0.7
    """Share of the BM25 score in ``score`` fusion; the cosine has the rest."""
    rrf_k: float = 10.0
    """The k of reciprocal rank fusion, 1 / (k + rank); 10 measured best on both dev sets."""
    bm25_weight: float = 1.0
    """Weight of the BM25 list in fusion."""
    vector_weight: float = 1.0
    """Weight of the vector list in fusion."""
    reranker_model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    """Cross-encoder path, or name in the local model cache, for reranking; empty: none."""
    reranker_backend: str = "onnx"
    """How the cross-encoder runs: ``onnx`` (ONNX Runtime, the scores torch gives),
    ``onnx-int8`` (int8 weights, faster, slightly different scores) or ``torch``."""
    rerank: str = "off"
    """Rerank searches unless a request says otherwise: ``on`` or ``off``."""
    rerank_candidates: int = 30
    """How many of the best fused candidates the cross-encoder rescores."""
    rerank_max_tokens: int = 256
    """Tokens of question and passage the cross-encoder reads; its cost grows with them."""
    tier_weights: Mapping[str, float] = field(
        default_factory=lambda: {"A": 1.5, "C": 1.2, "E": 1.0}
    )
    """Score weight per tier as JSON; scores are scaled by weight / largest weight."""
    c_recency_days: float = 3.5
    """Tier C scores decay as exp(-age in days / this); 0 turns decay off."""
    mmr_lambda: float = 1.0
    """MMR trade-off in (0, 1]: scores are scaled by 1 - (1 - lambda) x the word overlap
    with a better result, so near-duplicates sink; 1 turns it off."""
    strong_match_threshold: float = 0.35
    """``/v1/retrieve`` says ``strong_match`` when the best relevance reaches this."""
    answer_weights: Mapping[str, float] = field(
        default_factory=lambda: {
            "relevance": 0.6,
            "type": 0.15,
            "confidence": 0.15,
            "freshness": 0.1,
        }
    )
    """How ``/v1/retrieve`` blends an entry's relevance, type, confidence and freshness."""
    type_weights: Mapping[str, float] = field(
        default_factory=lambda: {
            "decision": 1.0,
            "framework": 0.9,
            "fact": 0.8,
            "position": 0.6,
            "reaction": 0.4,
        }
    )
    """Weight in [0, 1] per entry ``type`` for ``/v1/retrieve``; other types count 0.5."""
    freshness_days: float = 30.0
    """Freshness in ``/v1/retrieve`` is exp(-age in days / this)."""
    routine_similarity: float = 0.7
    """``/v1/routine-check``: cosine at or above which a tier E execution counts as similar."""
    routine_min_similar: int = 5
    """``/v1/routine-check``: similar executions needed for ``is_routine``."""
    candidates: int = 50
    """Fewest candidates taken from each list before fusion (at least 3 x limit)."""
    chunk_words: int = 150
    """Words per chunk for embedding; fits the model's 256-token window."""
    chunk_overlap: int = 30
    """Words shared by consecutive chunks."""
    jobs: str = "on"
    """Run the scheduled lifecycle jobs: ``on`` or ``off`` (they can still be run by hand)."""
    expire_c_cron: str = "0 * * * *"
    """When ``expire_c_tier`` archives expired tier C entries (crontab, UTC)."""
    archive_e_cron: str = "30 3 * * *"
    """When ``archive_e_tier`` archives (and optionally deletes) old tier E entries."""
    optimize_cron: str = "0 4 * * *"
    """When ``optimize_indexes`` merges Tantivy segments and collects garbage."""
    backfill_cron: str = "*/15 * * * *"
    """When ``backfill_embeddings`` embeds A/C entries written while no model was loaded."""
    rescan_cron: str = ""
    """When ``rescan_collections`` re-scans every collection (crontab, UTC); empty: never."""
    e_archive_days: float = 30.0
    """Tier E entries older than this many days are archived; 0 keeps them active."""
    e_delete_days: float = 0.0
    """Tier E entries older than this many days are deleted for good; 0 never deletes."""
    search_threads: int = 4
    """Requests served at once; model, Chroma and Tantivy calls run on this many threads."""
    query_cache_size: int = 512
    """Search outcomes kept for repeated queries; 0 turns the cache off."""
    query_cache_seconds: float = 30.0
    """A cached outcome is used for at most this long (writes to its namespace drop it)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: object) -> Settings:
        """Settings from ``STRATA_*`` variables; ``overrides`` (CLI flags) win when not None."""
        values: dict[str, object] = {}
        for f in dataclasses.fields(cls):
            raw = environ.get(PREFIX + f.name.upper())
            # Empty counts as unset, except where empty means "off".
            if raw is not None and (raw != "" or f.name in EMPTY_MEANS_OFF):
                values[f.name] = _parse(f.name, f.type, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(str(values["data_dir"]))
        settings = cls(**values)  # type: ignore[arg-type]
        settings.validate()
        return settings

    @property
    def model_cache_dir(self) -> Path:
        return Path(self.model_cache) if self.model_cache else self.data_dir / "models"

    def validate(self) -> None:
        if self.query_cache_size < 0 or self.query_cache_seconds < 0:
            raise ConfigError("STRATA_QUERY_CACHE_SIZE and _SECONDS must be >= 0")
        if self.embedding_backend not in ("torch", "onnx", "onnx-int8"):
            raise ConfigError("STRATA_EMBEDDING_BACKEND must be onnx, onnx-int8 or torch")
        if self.reranker_backend not in ("torch", "onnx", "onnx-int8"):
            raise ConfigError("STRATA_RERANKER_BACKEND must be onnx, onnx-int8 or torch")
        if self.max_batch < 1:
            raise ConfigError("STRATA_MAX_BATCH must be at least 1")
        if not 0 <= self.chunk_overlap < self.chunk_words:
            raise ConfigError("STRATA_CHUNK_OVERLAP must be >= 0 and below STRATA_CHUNK_WORDS")
        if self.fusion not in ("score", "rrf"):
            raise ConfigError("STRATA_FUSION must be score or rrf")
        if not 0 <= self.keyword_share <= 1:
            raise ConfigError("STRATA_KEYWORD_SHARE must be in [0, 1]")
        if self.rrf_k <= 0:
            raise ConfigError("STRATA_RRF_K must be positive")
        if self.bm25_weight < 0 or self.vector_weight < 0:
            raise ConfigError("fusion weights must not be negative")
        if self.jobs not in ("on", "off"):
            raise ConfigError("STRATA_JOBS must be on or off")
        if not set(self.tier_weights) <= {"A", "C", "E"} or any(
            w <= 0 for w in self.tier_weights.values()
        ):
            raise ConfigError("STRATA_TIER_WEIGHTS takes positive weights for tiers A, C and E")
        if self.c_recency_days < 0:
            raise ConfigError("STRATA_C_RECENCY_DAYS must be >= 0")
        if self.rerank not in ("on", "off"):
            raise ConfigError("STRATA_RERANK must be on or off")
        if self.rerank_candidates < 1:
            raise ConfigError("STRATA_RERANK_CANDIDATES must be at least 1")
        if self.rerank_max_tokens < 4:
            raise ConfigError("STRATA_RERANK_MAX_TOKENS must be at least 4")
        if not 0 < self.mmr_lambda <= 1:
            raise ConfigError("STRATA_MMR_LAMBDA must be in (0, 1]")
        if not 0 <= self.strong_match_threshold <= 1:
            raise ConfigError("STRATA_STRONG_MATCH_THRESHOLD must be in [0, 1]")
        if set(self.answer_weights) != {"relevance", "type", "confidence", "freshness"} or any(
            w < 0 for w in self.answer_weights.values()
        ):
            raise ConfigError(
                "STRATA_ANSWER_WEIGHTS takes weights >= 0 for relevance, type, confidence "
                "and freshness"
            )
        if any(not 0 <= w <= 1 for w in self.type_weights.values()):
            raise ConfigError("STRATA_TYPE_WEIGHTS takes weights in [0, 1]")
        if self.freshness_days <= 0:
            raise ConfigError("STRATA_FRESHNESS_DAYS must be positive")
        if not 0 <= self.routine_similarity <= 1 or self.routine_min_similar < 1:
            raise ConfigError(
                "STRATA_ROUTINE_SIMILARITY must be in [0, 1] and STRATA_ROUTINE_MIN_SIMILAR >= 1"
            )
        if self.e_archive_days < 0 or self.e_delete_days < 0:
            raise ConfigError("STRATA_E_ARCHIVE_DAYS and STRATA_E_DELETE_DAYS must be >= 0")


def _parse(name: str, kind: object, raw: str) -> object:
    env = PREFIX + name.upper()
    try:
        if kind in ("int", int):
            return int(raw)
        if kind in ("float", float):
            return float(raw)
        if kind == "Path":
            return Path(raw)
        if str(kind).startswith("Mapping"):
            value = json.loads(raw)
            if not isinstance(value, dict):
                raise ValueError("expected a JSON object")
            return {str(k): float(v) for k, v in value.items()}
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{env}: {exc}") from exc
    return raw
