"""The service's state: ``/health`` and ``/v1/stats``."""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field


class ReplicaHealth(Struct, kw_only=True):
    """This process among the replicas sharing its ledger."""

    name: str
    """STRATA_REPLICA_NAME, else ``<hostname>:<port>``."""
    mode: Literal["embedded", "cluster"]
    """``embedded``: SQLite files of its own; ``cluster``: a database shared by replicas."""
    leads_jobs: bool
    """Whether it runs the scheduled jobs for every replica."""
    lag_seconds: float
    """Since the oldest change of the ledger its keyword index has not applied; 0 when
    caught up (always in embedded mode, where every change is applied as it is made)."""
    changes_behind: int
    """Changes of the ledger its keyword index has not applied (at most)."""


class EngineHealth(Struct, kw_only=True):
    state: Literal["ok", "unavailable", "off"]
    """``off``: not configured, or not installed, and not wanted by default: no fault."""
    since: float | None = None
    """When it was first found unavailable, with no answer since (Unix seconds)."""
    error: str | None = None
    """The last failure, or why it is off."""


class BreakerHealth(Struct, kw_only=True):
    """The upstream's circuit breaker."""

    state: Literal["closed", "open", "half_open"]
    """``open``: the upstream is not asked until ``retry_at``; ``half_open``: the next
    recall is a trial that closes it or opens it again."""
    failures: int
    """Failed recalls in a row."""
    trips: int
    """Times it opened since the process started."""
    rejected: int
    """Recalls it refused since the process started."""
    opened_at: float | None = None
    """Unix seconds."""
    retry_at: float | None = None
    last_error: str | None = None


class UpstreamHealth(Struct, kw_only=True):
    """The upstream memory service asked when this one finds nothing; counts since the
    process started."""

    name: str
    """STRATA_UPSTREAM_NAME, else the host:port of its URL."""
    breaker: BreakerHealth
    asked: int
    answered: int
    failed: int
    circuit_open: int
    busy: int
    attempts: int


class Health(Struct):
    status: Literal["ok", "degraded"]
    model: str | None
    reranker: str | None
    stores: dict[str, Any]
    degraded: list[str]
    model_backend: str | None = None
    """What runs the embedding model: onnx, onnx-int8 or torch."""
    replica: ReplicaHealth | None = None
    engines: dict[str, EngineHealth] = field(default_factory=dict)
    """Each engine: ledger, vector_store, keyword_index, model, reranker, upstream."""
    upstream: UpstreamHealth | None = None
    """Null when no upstream is configured."""


class TierStats(Struct, kw_only=True):
    active: int = 0
    archived: int = 0
    vectors: int = 0
    tokens_embedded: int = 0
    tokens: int = 0


class ModelWork(Struct, kw_only=True):
    """Model calls, the texts they embedded and those texts' model tokens."""

    calls: int = 0
    texts: int = 0
    tokens: int = 0


class NamespaceStats(Struct):
    namespace: str
    tiers: dict[str, TierStats]
    read_time: ModelWork = field(default_factory=ModelWork)
    """Passages of this namespace's entries without a stored vector (tier E, archived tier
    C) embedded by reads since the process started."""


class Totals(Struct, kw_only=True):
    entries: int
    vectors: int
    tokens_embedded: int
    tokens_full_rag: int
    """Tokens embedding every entry, of every tier, would have cost."""
    embedding_avoided: float
    """Share of the full-RAG embedding work not done:
    1 - (tokens_embedded + tokens_read_time) / tokens_full_rag."""
    quarantined: int = 0
    """Entries set aside because they could not be indexed (``/v1/admin/quarantine``)."""
    tokens_read_time: int = 0
    """Tokens of passages embedded by reads since the process started."""


class ReadTimeWork(Struct, kw_only=True):
    """Model work of reads (searches, retrieves, routine checks) since the process
    started, in this process only."""

    since: str
    """When the process started counting."""
    queries: ModelWork | None = None
    """Queries embedded (a query vector reused from the cache costs nothing); null for a
    key limited to namespaces, as queries are not counted per namespace."""
    passages: ModelWork = field(default_factory=ModelWork)
    """Passages embedded to measure their cosine with a query, in the namespaces shown."""


class StatsResponse(Struct):
    namespaces: list[NamespaceStats]
    totals: Totals
    disk_bytes: dict[str, int | None]
    read_time: ReadTimeWork | None = None
    """Null when the process does not count the model work of reads."""
