"""The generated tiered workload: a deterministic stream of events, regenerated on demand."""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from bench.load.peers import Doc, entry_id
from bench.load.vocabulary import (
    AREAS,
    CHAINS,
    ENVS,
    EXCEPTIONS,
    KINDS,
    LEXICON,
    METHODS,
    PROJECTS,
    REGIONS,
    ROLES,
    SPEAKERS,
    STATUSES,
    TECH,
    VERBS,
    load_vocabulary,
)

TIERS = ("A", "C", "E")
SHARE = {"A": 0.02, "C": 0.08, "E": 0.90}
"""The share of each tier in the stream."""
DAY = 86_400.0


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

    def sentence(self, rng: random.Random, low: int, high: int) -> str:
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
            "Context: " + self.sentence(rng, 6, 14),
            f"Decision: we will {rng.choice(VERBS)} the {rng.choice(LEXICON)} of {svc} "
            f"on {tech} instead of {other}, because " + self.sentence(rng, 5, 12),
        ]
        for _ in range(rng.randint(0, 2)):
            parts.append(self.sentence(rng, 6, 14))
        parts.append("Consequences: " + self.sentence(rng, 5, 12))
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
        sentences = [self.sentence(rng, 6, 16) for _ in range(rng.randint(2, 7))]
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
