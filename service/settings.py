"""Service settings: frozen groups of ``STRATA_*`` variables, checked by msgspec against
their types and bounds. Every default of the service is written here, once.

Each field is read from ``STRATA_<FIELD NAME UPPERCASED>``; the group a field sits in only
orders the settings (as the README's configuration table does), it is not part of the name.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

import msgspec
from msgspec import Meta, Struct, field

from schemas.vocabulary import NAMESPACE_PATTERN
from service.errors import ConfigError
from service.net.addresses import is_loopback, is_postgres, origin, redacted

PREFIX = "STRATA_"
EMPTY_MEANS_OFF = frozenset({"reranker_model", "collection_roots"})
"""Settings where an empty variable means "none" rather than "unset"."""

Backend = Literal["onnx-int8", "onnx", "torch"]
Switch = Literal["on", "off"]
Count = Annotated[int, Meta(ge=1)]
Days = Annotated[float, Meta(ge=0)]
Share = Annotated[float, Meta(ge=0, le=1)]
Weight = Annotated[float, Meta(ge=0)]
UI_SECRET_CHARS = 32
"""Fewest characters of STRATA_UI_SECRET."""
_TIERS = ("A", "C", "E")
ROLES = ("agent", "admin")
"""The roles of API keys (``service.application.auth`` gives them to keys)."""
_PER_SECOND = {"agent": 20, "admin": 500}
_IN_FLIGHT = {"agent": 8, "admin": 64}
_CHUNKS_PER_MINUTE = {"agent": 3000, "admin": 60000}
_ANSWER_PARTS = ("relevance", "type", "confidence", "freshness")
RELEVANCE_FLOOR = 0.002
"""The default of STRATA_MIN_SCORE, chosen on the development sets: at 0.002 no relevant entry
of adr-dev's top 10 and one of locomo-tiers-dev's 1,132 fall below it, while the near-zero
matches of a question about something never recorded (0.001 and less) do; at 0.01 seven of
locomo-tiers-dev's fall, and a paraphrase sharing no word with its answer ("which database
did we choose?" for "we decided to use PostgreSQL") scores 0.0025 (docs/benchmarks.md)."""


def variable(name: str) -> str:
    """The environment variable of the setting ``name``."""
    return PREFIX + name.upper()


class Group(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A section of the settings."""


class ServerSettings(Group, frozen=True):
    host: str = "127.0.0.1"
    """Interface to bind. Without API keys only loopback addresses are allowed."""
    port: Annotated[int, Meta(ge=0, le=65535)] = 8080
    """TCP port to listen on."""
    api_keys: str = ""
    """API keys as ``key=role[:ns1,ns2];...`` with role ``agent`` or ``admin``."""
    api_keys_file: str = ""
    """JSON file of API keys: ``[{"key": ..., "role": ..., "namespaces": [...]}]``."""
    max_batch: Count = 1000
    """Most events accepted by one ``POST /v1/events``; more get 413."""
    max_body_bytes: Count = 16 * 1024 * 1024
    """Largest request body accepted; more get 413."""
    max_import_bytes: Count = 4 * 1024**3
    """Largest export file ``POST /v1/namespaces/{namespace}/import`` accepts (it is kept
    in a temporary file while it is read); more get 413."""
    max_hit_chars: Count = 10_000
    """Most characters of an entry's text a search hit or retrieved entry carries (it says
    ``truncated``); ``GET /v1/entries/{id}`` gives the whole text."""
    max_documents: Count = 100
    """Most documents one ``POST /v1/documents/batch`` returns; the rest are listed as
    skipped."""
    max_documents_bytes: Count = 10 * 1024 * 1024
    """Most bytes of files one ``POST /v1/documents/batch`` returns in all; the rest are
    listed as skipped."""
    search_threads: Count = 4
    """Reads served at once (searches, retrieves, gets): their model, Chroma and Tantivy
    calls run on this many threads."""
    write_threads: Count = 2
    """Writes served at once (ingest, deletes, promotions, scans, jobs run by hand), on
    threads of their own, so slow writes never hold up searches or ``/health``."""
    allowed_origins: str = ""
    """Web origins, comma-separated (``http://localhost:5173``), whose pages may call the
    service besides loopback ones; see Security."""
    ui_secret: str = ""
    """Key that signs the console's session cookies (at least 32 characters); empty: a
    random one kept in ``ui-secret`` in the data directory. Replicas behind one load
    balancer must share it."""

    @property
    def has_keys(self) -> bool:
        """Whether API keys are configured; without them every caller is an admin."""
        return bool(self.api_keys.strip(" ;") or self.api_keys_file)

    @property
    def origins(self) -> frozenset[str]:
        """``allowed_origins`` as browsers write them in ``Origin``."""
        return frozenset(filter(None, map(origin, self.allowed_origins.split(","))))

    def __post_init__(self) -> None:
        for given in filter(None, (o.strip() for o in self.allowed_origins.split(","))):
            if origin(given) is None:
                raise ConfigError(
                    f"STRATA_ALLOWED_ORIGINS: {given!r} is not an origin like "
                    "http://localhost:5173 (scheme, host and port, no path)"
                )
        if self.ui_secret and len(self.ui_secret) < UI_SECRET_CHARS:
            raise ConfigError(
                f"STRATA_UI_SECRET: at least {UI_SECRET_CHARS} characters, "
                f"got {len(self.ui_secret)}"
            )
        if not self.has_keys and not is_loopback(self.host):
            raise ConfigError(
                f"refusing to listen on {self.host} without API keys; "
                "set STRATA_API_KEYS or STRATA_API_KEYS_FILE, or bind to 127.0.0.1"
            )


class LimitSettings(Group, frozen=True):
    requests_per_second: Mapping[str, Annotated[float, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_PER_SECOND)
    )
    """Requests one API key may send a second, by its role, as JSON; a second's worth may
    come at once, and more get 429. A role left out keeps its default; 0: no limit. An
    agent makes a call every few seconds, or a few a second when several share its key: 20
    is far above that, yet holds one key to about a sixth of the hybrid searches two cores
    answer (about 130 a second), so a runaway agent cannot crowd out the others. An admin
    key runs imports, benchmarks and the console: 500 only stops a loop gone wrong."""
    requests_in_flight: Mapping[str, Annotated[int, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_IN_FLIGHT)
    )
    """Requests of one API key served at once, by its role, as JSON; one more gets 429, so
    the requests of one key cannot queue up ahead of another key's. A role left out keeps
    its default; 0: no limit. 8, twice STRATA_SEARCH_THREADS, is more than an agent's
    parallel tool calls need; 64 lets an admin's load test run at concurrency 32."""
    chunks_embedded_per_minute: Mapping[str, Annotated[int, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_CHUNKS_PER_MINUTE)
    )
    """Chunks one API key's writes of tier A and C entries may have embedded a minute, by
    its role, as JSON; a minute's worth may come at once, and a write needing more gets
    429. A batch needing more than a minute's worth is taken when the allowance is whole,
    and the key then waits until it is paid back. A role left out keeps its default; 0: no
    limit. An agent recording every turn of a busy conversation embeds a few chunks a
    minute, and 3000 (about 450,000 words) still lets it import a notebook at once; two
    cores embed some 100 to 150 chunks a second, so one agent's import leaves the model at
    least half its time for the others. 60,000 only stops an admin's loop gone wrong."""
    limit_addresses: Switch = "off"
    """Without API keys, keep the admin role's limits (every caller is an admin then) for
    each client address: ``on`` or ``off``. Off by default: without keys the service listens
    on loopback only, where every caller is the person running it."""
    sign_in_failures_per_minute: Annotated[int, Meta(ge=0)] = 10
    """Failed authentications (an unknown API key) allowed from one client address a
    minute, console sign-ins and keys sent to the REST API and ``/mcp`` counted together,
    and console sign-ins with one key tried; ten may come at once, and then the address's
    requests that send a key (its sign-ins) answer 429 until the allowance refills. Ten is
    more than anyone mistyping a key needs, and holds a guesser to 14,400 tries a day against
    keys of at least 16 characters; 0: no limit."""

    def per_second(self, role: str) -> float:
        """``requests_per_second`` of ``role``; 0: no limit."""
        return float(self.requests_per_second.get(role, _PER_SECOND[role]))

    def in_flight(self, role: str) -> int:
        """``requests_in_flight`` of ``role``; 0: no limit."""
        return int(self.requests_in_flight.get(role, _IN_FLIGHT[role]))

    def chunks_per_minute(self, role: str) -> int:
        """``chunks_embedded_per_minute`` of ``role``; 0: no limit."""
        return int(self.chunks_embedded_per_minute.get(role, _CHUNKS_PER_MINUTE[role]))

    def __post_init__(self) -> None:
        for name in ("requests_per_second", "requests_in_flight", "chunks_embedded_per_minute"):
            if unknown := sorted(set(getattr(self, name)) - set(ROLES)):
                raise ConfigError(
                    f"{variable(name)} takes the roles {' and '.join(ROLES)}, not {unknown}"
                )


class StorageSettings(Group, frozen=True):
    data_dir: Path = Path("strata-data")
    """Directory holding the ledger, the Tantivy index and the embedded Chroma store."""
    chroma_url: str = ""
    """URL of a Chroma server (``http://host:port``). Empty: embedded Chroma in data_dir."""
    model_cache: str = ""
    """Where exported ONNX models are kept; empty: ``models`` in the data directory."""
    database_url: str = ""
    """PostgreSQL URL (``postgresql://user:password@host:5432/strata``) of the ledger, the
    catalog, the interaction log and the job runs every replica shares; needs
    STRATA_CHROMA_URL. Empty: SQLite files in data_dir, one process."""
    engine_timeout: float = 10.0
    """Seconds a call to the Chroma server or the Postgres database may take (a statement,
    a request, the wait for a pooled connection) before that engine counts as unavailable:
    a search then answers from keywords, a write or a read of the ledger answers 503 with
    ``Retry-After``. Well under a client's own timeout, so none waits past it."""

    @property
    def model_cache_dir(self) -> Path:
        return Path(self.model_cache) if self.model_cache else self.data_dir / "models"

    @property
    def shared(self) -> bool:
        """Whether the stores are shared by replicas (a database server), not local files."""
        return bool(self.database_url)

    def __post_init__(self) -> None:
        if not self.database_url:
            return
        if not is_postgres(self.database_url):
            raise ConfigError(
                f"STRATA_DATABASE_URL: expected a postgresql://user:password@host:port/database "
                f"URL, got {redacted(self.database_url)!r}"
            )
        if not self.chroma_url:
            raise ConfigError(
                "STRATA_DATABASE_URL is set but STRATA_CHROMA_URL is not: replicas sharing a "
                "database must share their vectors too; set STRATA_CHROMA_URL to a Chroma server"
            )


class CollectionSettings(Group, frozen=True):
    collection_roots: str | None = None
    """Folders under which collections may be registered, separated by commas or ``:``
    (``~/notes,/srv/docs``); a collection's folder must be inside one, after links and
    ``..`` are resolved. Unset: the home directory of the user running the service when it
    has no API keys (every caller is then on this machine, and notes live there), none with
    keys (an admin key must not become a key to the server's disk until an operator says
    which part of it). Empty: none, collections are off. ``/``, system folders (``/etc``,
    ``/proc``, ``/usr``, ...) and the data directory are refused whatever this says."""
    max_collection_files: Count = 10_000
    """Most files one collection may hold (those its mask matches): a registration over it
    is refused (422), a re-scan over it changes nothing (409). A registration answers once
    its files are embedded; a folder with more is most likely not one of notes."""
    max_file_bytes: Count = 1024 * 1024
    """Largest file a scan indexes; a larger one is skipped and listed in the scan's
    ``skipped`` with its size. 1 MiB of text is about 1,500 chunks to embed."""

    def roots(self, *, has_keys: bool) -> tuple[str, ...]:
        """The root folders as given, ``~`` expanded, with the default applied."""
        if self.collection_roots is None:
            home = os.path.expanduser("~")
            return () if has_keys or home == "~" else (home,)
        given = re.split(rf"[,{re.escape(os.pathsep)}]", self.collection_roots)
        return tuple(os.path.expanduser(root.strip()) for root in given if root.strip())


class ClusterSettings(Group, frozen=True):
    replica_name: str = ""
    """This process's name among the replicas of a cluster, in ``/health`` and in the runs
    of the jobs; empty: ``<hostname>:<port>``."""
    replica_poll_ms: Count = 200
    """How often, in milliseconds, a replica of a cluster reads the ledger's change log and
    applies what other replicas changed to its own keyword index."""
    change_retention_days: Annotated[float, Meta(gt=0)] = 7.0
    """Changes are kept in the ledger's change log this many days (``trim_changes``); a
    replica away longer rebuilds its keyword index from the ledger when it comes back."""


class TelemetrySettings(Group, frozen=True):
    metrics: Switch = "on"
    """``GET /metrics`` in the Prometheus text format (OpenMetrics when asked): open on
    loopback without API keys; with keys, for admin keys and STRATA_METRICS_TOKEN."""
    metrics_token: str = ""
    """A bearer token that may read ``/metrics`` and nothing else (for a scraper that should
    not hold an admin key); empty: none."""
    log_format: Literal["text", "json"] = "text"
    """Log lines as text, or as one JSON object per line; each carries its request's id."""
    trace_content: Switch = "off"
    """Put query text and record contents into trace spans (``gen_ai.memory.query.text``,
    ``gen_ai.memory.records``). Tracing itself is on when OTEL_EXPORTER_OTLP_ENDPOINT is set."""


class ModelSettings(Group, frozen=True):
    embedding_model: str = ""
    """Sentence-transformers model name or path. Empty: the bundled all-MiniLM-L6-v2."""
    embedding_backend: Backend = "onnx-int8"
    """How the model runs: ``onnx-int8`` (ONNX Runtime with int8 weights, exported once),
    ``onnx`` (ONNX Runtime, the same vectors as torch) or ``torch``."""
    model_threads: Annotated[int, Meta(ge=0)] = 0
    """Threads one batch of texts may use in a model call; 0: one per core. A search's query
    is always embedded on one thread."""
    reranker_model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    """Cross-encoder path, or name in the local model cache, for reranking; empty: none."""
    reranker_backend: Backend = "onnx"
    """How the cross-encoder runs: ``onnx`` (ONNX Runtime, the scores torch gives),
    ``onnx-int8`` (int8 weights, faster, slightly different scores) or ``torch``."""
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


class ChunkingSettings(Group, frozen=True):
    chunk_words: Count = 150
    """Words per chunk for embedding; fits the model's 256-token window."""
    chunk_overlap: Annotated[int, Meta(ge=0)] = 30
    """Words shared by consecutive chunks."""
    max_chunks: Count = 2000
    """Most chunks one entry's text may make; an event with more is refused (422), as
    every chunk costs a model call to write and a vector to keep and to search."""
    similar_threshold: Annotated[float, Meta(ge=0, le=1)] = 0.6
    """Cosine of two entries' first chunks at or above which a write of tier A or C names
    the older one among its ``similar`` entries (writes of up to 32 events)."""

    def __post_init__(self) -> None:
        if self.chunk_overlap >= self.chunk_words:
            raise ConfigError("STRATA_CHUNK_OVERLAP must be below STRATA_CHUNK_WORDS")


class AnswerSettings(Group, frozen=True):
    strong_match_threshold: Share | None = None
    """``/v1/retrieve`` says ``strong_match`` when ``answer_confidence`` reaches this;
    unset: the threshold the calibration recommends."""
    calibration: str = ""
    """A calibration of ``answer_confidence`` written by ``strata calibrate --output``;
    empty: the one shipped, fitted on the development sets."""
    answer_weights: Mapping[str, Weight] = field(
        default_factory=lambda: {
            "relevance": 0.9,
            "type": 0.0,
            "confidence": 0.05,
            "freshness": 0.05,
        }
    )
    """How ``/v1/retrieve`` blends an entry's relevance, type, confidence and freshness. The
    relevance already weighs an entry's kind against what the question asks for; a type
    weight lifts the types of ``type_weights`` for every question alike."""
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
        if sorted(self.answer_weights) != sorted(_ANSWER_PARTS):
            raise ConfigError(
                "STRATA_ANSWER_WEIGHTS takes a weight for each of relevance, type, confidence "
                f"and freshness, not {sorted(self.answer_weights)}"
            )


class LifecycleSettings(Group, frozen=True):
    c_ttl_days: Days = 7.0
    """Default lifetime of tier C entries, in days from the event timestamp."""
    ttl_by_chain_type: Mapping[str, Days] = field(default_factory=dict)
    """Per ``chain_type`` lifetime of tier C entries, as JSON: ``{"standup": 2}``."""
    jobs: Switch = "on"
    """Run the scheduled lifecycle jobs: ``on`` or ``off`` (they can still be run by hand)."""
    expire_c_cron: str = "0 * * * *"
    """When ``expire_c_tier`` archives expired tier C entries (crontab, UTC)."""
    archive_e_cron: str = "30 3 * * *"
    """When ``archive_e_tier`` archives (and optionally deletes) old tier E entries."""
    optimize_cron: str = "0 4 * * *"
    """When ``optimize_indexes`` merges Tantivy segments and collects garbage."""
    recover_cron: str = "* * * * *"
    """When ``recover_pending`` applies to the indexes the writes an index failed to take
    (and sets aside, in quarantine, entries that cannot be indexed)."""
    backfill_cron: str = "*/15 * * * *"
    """When ``backfill_embeddings`` embeds A/C entries written while no model was loaded."""
    rescan_cron: str = ""
    """When ``rescan_collections`` re-scans every collection (crontab, UTC); empty: never."""
    trim_changes_cron: str = "15 * * * *"
    """When ``trim_changes`` drops changes older than STRATA_CHANGE_RETENTION_DAYS from the
    ledger's change log."""
    e_archive_days: Days = 30.0
    """Tier E entries older than this many days are archived; 0 keeps them active."""
    e_delete_days: Days = 0.0
    """Tier E entries older than this many days are deleted for good; 0 never deletes."""


class UpstreamSettings(Group, frozen=True):
    upstream_url: str = ""
    """Base URL (``http://host:port``) of another memory service speaking strata's search
    contract (another strata, or anything implementing the subset in docs/api.md), asked
    when a search or a retrieve finds nothing here; empty: none."""
    upstream_key: str = ""
    """API key sent to the upstream as ``Authorization: Bearer``; empty: none."""
    upstream_name: str = ""
    """How results (``upstream.name``) and ``/health`` name the upstream; empty: its
    ``host:port``."""
    upstream_namespaces: Mapping[str, Annotated[str, Meta(pattern=NAMESPACE_PATTERN)] | None] = (
        field(default_factory=dict)
    )
    """Which upstream namespace a local one asks, as JSON: ``{"alice": "team"}``; ``null``
    never asks for that namespace. A namespace not listed asks the one of its own name."""
    upstream_timeout: Annotated[float, Meta(gt=0, le=60)] = 1.0
    """Seconds one recall may take in all (attempts, and waits between them); a search
    that found nothing answers within it."""
    upstream_retries: Annotated[int, Meta(ge=0, le=10)] = 2
    """Attempts after the first, for failures another attempt may cure (a timeout, a
    refused or dropped connection, 5xx, 429), within the time budget."""
    upstream_backoff_ms: Annotated[int, Meta(ge=0, le=10_000)] = 50
    """Most milliseconds of the wait before the first retry; each later one at most doubles
    it (capped at 2 s), and each wait is drawn uniformly below that (full jitter)."""
    upstream_failures: Count = 3
    """Failed recalls in a row that open the circuit breaker: the upstream is then not asked
    for STRATA_UPSTREAM_COOLDOWN seconds."""
    upstream_cooldown: Annotated[float, Meta(gt=0, le=86_400)] = 30.0
    """Seconds an open breaker stops asking the upstream; then one recall is let through as
    a trial, and its success closes the breaker, its failure opens it again."""
    upstream_in_flight: Count = 2
    """Recalls under way at once; one more answers without asking (``busy``), so a slow
    upstream never holds every read thread."""
    upstream_on_weak: Switch = "off"
    """``on``: a retrieve with entries but no strong match asks the upstream too, and lists
    its entries after the local ones."""
    upstream_store: Switch = "off"
    """``on``: keep what the upstream returns as local entries (id ``<name>:<id>``, the
    tier the upstream gave, a tier C one expiring when it does there, metadata ``upstream``,
    ``upstream_namespace``, ``upstream_id``), so the next search finds them here; ``off``:
    never stored."""

    @property
    def label(self) -> str:
        """``upstream_name``, else the URL's ``host:port``."""
        if self.upstream_name:
            return self.upstream_name
        parts = urlsplit(self.upstream_url)
        return parts.netloc.rpartition("@")[2] or "upstream"

    def __post_init__(self) -> None:
        if self.upstream_url:
            parts = urlsplit(self.upstream_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(
                    "STRATA_UPSTREAM_URL: expected an http:// or https:// URL, got "
                    f"{redacted(self.upstream_url)!r}"
                )
        if self.upstream_name and not re.fullmatch(NAMESPACE_PATTERN, self.upstream_name):
            raise ConfigError(
                "STRATA_UPSTREAM_NAME: letters, digits, '_', '.' and '-' (at most 64), "
                f"got {self.upstream_name!r}"
            )


class Settings(Struct, frozen=True, kw_only=True):
    """Every knob of the service, by group."""

    server: ServerSettings = field(default_factory=ServerSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    answers: AnswerSettings = field(default_factory=AnswerSettings)
    lifecycle: LifecycleSettings = field(default_factory=LifecycleSettings)
    collections: CollectionSettings = field(default_factory=CollectionSettings)
    cluster: ClusterSettings = field(default_factory=ClusterSettings)
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)

    upstream: UpstreamSettings = field(default_factory=UpstreamSettings)

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: object) -> Settings:
        """Settings from ``STRATA_*`` variables; ``overrides`` (CLI flags, by setting name)
        win when not None."""
        values: dict[str, object] = {}
        for name, kind in _KINDS.items():
            raw = environ.get(variable(name))
            # Empty counts as unset, except where empty means "off".
            if raw is not None and (raw.strip() != "" or name in EMPTY_MEANS_OFF):
                values[name] = _from_text(name, kind, raw.strip())
        values.update({k: v for k, v in overrides.items() if v is not None})
        return _build(values)

    def replace(self, **changes: object) -> Settings:
        """These settings with some changed, by setting name (``data_dir=..., jobs="off"``),
        checked as the environment's are."""
        current = {name: getattr(getattr(self, group), name) for name, group in _GROUP_OF.items()}
        return _build({**current, **changes})


_GROUPS: dict[str, type[Group]] = {f.name: f.type for f in msgspec.structs.fields(Settings)}
_GROUP_OF = {f.name: g for g, kind in _GROUPS.items() for f in msgspec.structs.fields(kind)}
_KINDS = {f.name: f.type for kind in _GROUPS.values() for f in msgspec.structs.fields(kind)}
_INTEGER = re.compile(r"[+-]?\d+")


def _build(values: Mapping[str, object]) -> Settings:
    if unknown := sorted(set(values) - set(_GROUP_OF)):
        raise TypeError(f"no such setting: {', '.join(unknown)}")
    groups: dict[str, Any] = {}
    for group, kind in _GROUPS.items():
        given = {name: v for name, v in values.items() if _GROUP_OF[name] == group}
        try:
            groups[group] = msgspec.convert(given, kind, strict=False, dec_hook=_path)
        except msgspec.ValidationError as exc:
            raise _named(exc, given) from exc
    return Settings(**groups)


def _from_text(name: str, kind: object, raw: str) -> object:
    """A variable's text as msgspec should see it: JSON for a mapping, text otherwise."""
    base = _unannotated(kind)
    if get_origin(base) is Mapping:
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise ConfigError(f"{variable(name)}: not JSON ({exc})") from exc
    if base is int and not _INTEGER.fullmatch(raw):  # msgspec would read "1e3" as 1000
        raise ConfigError(f"{variable(name)}: expected int, got {raw!r}")
    return raw


def _named(exc: msgspec.ValidationError, given: Mapping[str, object]) -> ConfigError:
    """msgspec's "Expected `int` >= 1 - at `$.max_batch`" as "STRATA_MAX_BATCH: expected
    int >= 1, got '0'"."""
    message, _, where = str(exc).partition(" - at `$.")
    name = re.split(r"[`\[]", where, maxsplit=1)[0]
    if name not in given:
        return ConfigError(str(exc))
    kind = _unannotated(_KINDS[name])
    if get_origin(kind) is Literal:
        expected = "expected one of " + ", ".join(get_args(kind))
    else:
        expected = message.split(", got", 1)[0].replace("`", "")
        expected = expected[0].lower() + expected[1:]
        if "[" in where:
            expected += " in each entry"
    return ConfigError(f"{variable(name)}: {expected}, got {given[name]!r}")


def _unannotated(kind: object) -> object:
    return get_args(kind)[0] if get_origin(kind) is Annotated else kind


def _path(kind: type, value: object) -> object:
    if kind is Path and isinstance(value, str | Path):
        return Path(value)
    raise NotImplementedError
