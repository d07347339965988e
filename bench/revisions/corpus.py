"""The revised-decisions corpus: topics decided then revised, the talk and logs around them,
and the questions asked of it. Seeded and generated whole (a few thousand short texts)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

COMPONENTS = (
    "ledger", "billing service", "search index", "auth gateway", "ingest pipeline",
    "notification queue", "report builder", "admin console", "mobile backend", "audit trail",
    "payment worker", "session store", "media uploader", "export job", "pricing engine",
    "feature flags", "metrics collector", "scheduler", "webhook relay", "identity service",
    "inventory api", "checkout flow", "email sender", "document store", "geo lookup",
    "fraud scorer", "chat backend", "recommendation model", "tenant registry", "backup agent",
)  # fmt: skip
ASPECTS: dict[str, tuple[str, ...]] = {
    "database": ("PostgreSQL", "SQLite", "MySQL", "CockroachDB", "DynamoDB", "MongoDB"),
    "cache": ("Redis", "Memcached", "an in-process LRU", "Varnish", "no cache at all"),
    "message broker": ("Kafka", "RabbitMQ", "NATS", "SQS", "Redis streams"),
    "deployment strategy": (
        "blue-green deploys",
        "canary releases",
        "rolling updates",
        "recreate deploys",
        "feature-flagged dark launches",
    ),
    "log retention": ("7 days", "30 days", "90 days", "one year", "14 days hot then S3"),
    "retry policy": (
        "exponential backoff capped at 60s",
        "three fixed retries",
        "no retries",
        "jittered backoff with a circuit breaker",
        "a dead-letter queue after five tries",
    ),
    "serialization format": ("JSON", "Protocol Buffers", "Avro", "MessagePack", "CBOR"),
    "auth method": ("OAuth2 client credentials", "mTLS", "API keys", "signed JWTs", "SAML"),
    "hosting region": ("eu-west-1", "us-east-1", "eu-central-1", "ap-southeast-2", "two regions"),
    "test framework": ("pytest", "unittest", "hypothesis property tests", "behave", "nose2"),
}
REASONS = (
    "because it keeps operations simple for a small team",
    "since the load tests showed it holds the peak with room to spare",
    "as it is what the on-call engineers already know",
    "because the vendor contract makes it cheaper",
    "since it removes a whole class of outages we saw last quarter",
    "to meet the audit requirement from compliance",
    "because the latency budget leaves no room for the alternative",
)
REVISED = (
    "Revised decision on the {subject}: we move from {old} to {new}, {reason}.",
    "Update to the {subject} decision: {new} replaces {old}, {reason}.",
    "We are changing the {subject}: use {new} instead of {old}, {reason}.",
)
DECIDED = (
    "Decision on the {subject}: we will use {new}, {reason}.",
    "We decided the {subject} uses {new}, {reason}.",
    "ADR: the {subject} is {new}, {reason}.",
)
TALK = (
    "{speaker}: should we reconsider {new} for the {subject}? {worry}",
    "{speaker}: I still think {other} would suit the {subject} better than {new}. {worry}",
    "{speaker}: quick note on the {subject}, {new} looked fine in staging. {worry}",
)
WORRIES = (
    "The migration could take a sprint.",
    "Nobody has benchmarked it at our volume.",
    "The last incident review mentioned it.",
    "Costs went up this month.",
    "We should ask the platform team first.",
)
LOGS = (
    "deploy {slug}: config {aspect_slug}={new_slug} applied, exit 0",
    "WARN {slug}: {aspect_slug} check took 812ms ({new_slug})",
    "ERROR {slug}: {aspect_slug} connection refused, retrying ({new_slug})",
)
SPEAKERS = ("ana", "ben", "chen", "dara", "eli", "femi")
QUESTIONS = (
    ("what did we decide about the {subject}?", True),
    ("which {aspect} does the {component} use?", False),
    ("current decision on the {subject}", True),
    ("{subject} decision", True),
)
"""Each question's form, and whether it says it asks for a decision."""


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


@dataclass
class Topic:
    component: str
    aspect: str
    options: list[str]
    """The option of each version, oldest first (two to four versions)."""
    reasons: list[str]
    ids: list[str] = field(default_factory=list)

    @property
    def subject(self) -> str:
        return f"{self.component} {self.aspect}"

    @property
    def revisions(self) -> int:
        return len(self.options) - 1


@dataclass(frozen=True)
class Question:
    text: str
    topic: int
    version: int
    """The version that answers it (the topic's last for a question of now)."""
    as_of_round: int | None
    """Ask as of the moment after this round's writes; None: now."""
    worded: bool
    """Whether it says it asks for a decision ("what did we decide", "decision on")."""


def topics(count: int, seed: int) -> list[Topic]:
    """``count`` distinct (component, aspect) topics, each decided once and revised one to
    three times (a third each), every version choosing another option."""
    rng = random.Random(seed)
    pairs = [(c, a) for c in COMPONENTS for a in ASPECTS]
    if count > len(pairs):
        raise ValueError(f"at most {len(pairs)} topics")
    found = []
    for component, aspect in rng.sample(pairs, count):
        versions = 1 + rng.choice((1, 2, 3))
        options = rng.sample(ASPECTS[aspect], versions)
        reasons = [rng.choice(REASONS) for _ in options]
        topic = Topic(component, aspect, options, reasons)
        topic.ids = [f"{slug(topic.subject)}-v{n + 1}" for n in range(versions)]
        found.append(topic)
    return found


def rounds(found: list[Topic], seed: int, supersede: bool) -> Iterator[list[dict[str, Any]]]:
    """The events of each round, oldest first: round ``r`` writes version ``r`` of every
    topic that has one (round 0 the first decisions), with a discussion of it (tier C) and a
    log line (tier E) per topic still open. With ``supersede``, a revision names the version
    it replaces."""
    rng = random.Random(seed)
    for r in range(max(len(t.options) for t in found)):
        events: list[dict[str, Any]] = []
        for n, topic in enumerate(found):
            if r >= len(topic.options):
                continue
            new, reason = topic.options[r], topic.reasons[r]
            fields = {"subject": topic.subject, "new": new, "reason": reason}
            if r == 0:
                text = rng.choice(DECIDED).format(**fields)
            else:
                text = rng.choice(REVISED).format(old=topic.options[r - 1], **fields)
            decision: dict[str, Any] = {
                "id": topic.ids[r],
                "text": text,
                "tier": "A",
                "type": "decision",
                "speaker": rng.choice(SPEAKERS),
            }
            if supersede and r > 0:
                decision["supersedes"] = [topic.ids[r - 1]]
            others = [o for o in ASPECTS[topic.aspect] if o != new]
            talk = rng.choice(TALK).format(
                speaker=rng.choice(SPEAKERS), other=rng.choice(others), worry=rng.choice(WORRIES),
                **fields,
            )  # fmt: skip
            log = rng.choice(LOGS).format(
                slug=slug(topic.component), aspect_slug=slug(topic.aspect), new_slug=slug(new)
            )
            events.append(decision)
            events.append({"id": f"talk-{n}-{r}", "text": talk, "tier": "C"})
            events.append({"id": f"log-{n}-{r}", "text": log, "tier": "E"})
        yield events


def questions(found: list[Topic], seed: int) -> tuple[list[Question], list[Question]]:
    """A question of now for every topic, and one as of a moment between two of its versions
    (after version ``r`` was written, before ``r + 1``) for every topic."""
    rng = random.Random(seed)
    now, then = [], []
    for n, topic in enumerate(found):
        fields = {"subject": topic.subject, "aspect": topic.aspect, "component": topic.component}
        form, worded = rng.choice(QUESTIONS)
        now.append(Question(form.format(**fields), n, topic.revisions, None, worded))
        r = rng.randrange(topic.revisions)
        form, worded = rng.choice(QUESTIONS)
        then.append(Question(form.format(**fields), n, r, r, worded))
    return now, then
