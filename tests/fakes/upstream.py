"""An upstream memory service in memory: it holds entries per namespace and answers a
search with those sharing a word with the query; the test scripts failures and latency."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from service.domain.entries import Entry
from service.domain.model import UpstreamHit
from service.domain.recall import UpstreamError
from tests.fakes.entries import words


@dataclass
class FakeUpstream:
    name: str = "central"
    entries: dict[str, list[Entry]] = field(default_factory=dict)
    """By namespace."""
    failures: list[UpstreamError] = field(default_factory=list)
    """Raised by the next calls, in order, before it answers again."""
    latency: float = 0.0
    """Seconds each call takes, on the ``wait`` given (a fake clock's advance)."""
    wait: Callable[[float], None] = lambda seconds: None
    calls: list[tuple[str, str, int, float]] = field(default_factory=list)
    """(namespace, query, limit, timeout) of every call."""

    def add(self, entry: Entry) -> None:
        self.entries.setdefault(entry.namespace, []).append(entry)

    def search(self, namespace: str, query: str, limit: int, timeout: float) -> list[UpstreamHit]:
        self.calls.append((namespace, query, limit, timeout))
        if self.latency > timeout:
            self.wait(timeout)
            raise UpstreamError(f"no answer within {timeout:.2f} s", retryable=True)
        self.wait(self.latency)
        if self.failures:
            raise self.failures.pop(0)
        asked = set(words(query))
        scored = [
            (len(asked & set(words(e.text))) / max(len(asked), 1), e)
            for e in self.entries.get(namespace, [])
        ]
        found = sorted((p for p in scored if p[0] > 0), key=lambda p: -p[0])[:limit]
        return [UpstreamHit(e, e.text[:300], score) for score, e in found]
