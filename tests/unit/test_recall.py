"""Recall from an upstream: the time budget, retries with backoff and jitter, the breaker,
the bound on recalls under way and the namespace mapping; time and sleep are injected."""

from __future__ import annotations

import re
import threading

import pytest

from service.domain.recall import RetryPolicy, UpstreamError, UpstreamRecall, backoff_delay
from service.lib.breaker import CircuitBreaker
from tests.fakes import FakeClock, FakeUpstream, make_entry

POLICY = RetryPolicy(budget=1.0, retries=2, backoff=0.05)


class Timeline:
    """A monotonic clock that only ``sleep`` and the fake upstream's latency move."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def wait(self, seconds: float) -> None:
        self.now += seconds


def recall(
    upstream: FakeUpstream,
    timeline: Timeline,
    *,
    policy: RetryPolicy = POLICY,
    clock: FakeClock | None = None,
    failures: int = 3,
    **options: object,
) -> UpstreamRecall:
    upstream.wait = timeline.wait
    breaker = CircuitBreaker(failures, 30.0, clock or FakeClock())
    return UpstreamRecall(
        upstream,
        policy,
        breaker,
        timer=timeline,
        sleep=timeline.sleep,
        random=lambda: 0.5,
        **options,  # type: ignore[arg-type]
    )


def down(detail: str = "503 Service Unavailable") -> UpstreamError:
    return UpstreamError(detail, retryable=True)


@pytest.fixture
def upstream() -> FakeUpstream:
    found = FakeUpstream("central")
    found.add(make_entry("pg-1", "We chose Postgres for billing.", namespace="team"))
    return found


def test_hits_come_back_in_the_local_namespace_citing_the_upstream_one(
    upstream: FakeUpstream,
) -> None:
    r = recall(upstream, Timeline(), namespaces={"alice": "team"})
    report = r.ask("alice", "which database for billing?", 5)
    assert report is not None and report.outcome == "answered" and report.attempts == 1
    (hit,) = report.hits
    assert (hit.entry.id, hit.entry.namespace, hit.namespace, hit.source) == (
        "pg-1",
        "alice",
        "team",
        "central",
    )
    assert hit.entry.text == "We chose Postgres for billing."
    assert upstream.calls == [("team", "which database for billing?", 5, 1.0)]


def test_namespaces_map_one_to_one_unless_configured_and_null_is_never_asked(
    upstream: FakeUpstream,
) -> None:
    r = recall(upstream, Timeline(), namespaces={"scratch": None})
    assert r.ask("scratch", "billing", 5) is None
    report = r.ask("team", "billing", 5)
    assert report is not None and [h.entry.id for h in report.hits] == ["pg-1"]
    assert [c[0] for c in upstream.calls] == ["team"]


def test_a_retryable_failure_is_retried_after_a_jittered_exponential_backoff(
    upstream: FakeUpstream,
) -> None:
    timeline = Timeline()
    upstream.failures = [down(), down()]
    report = recall(upstream, timeline).ask("team", "billing", 5)
    assert report is not None and report.outcome == "answered" and report.attempts == 3
    assert timeline.slept == [0.025, 0.05]  # random 0.5 x 0.05 x 2^(n-1)
    assert [round(c[3], 3) for c in upstream.calls] == [1.0, 0.975, 0.925]


def test_retries_are_bounded_and_the_failure_reported(upstream: FakeUpstream) -> None:
    upstream.failures = [down("a"), down("b"), down("c"), down("d")]
    report = recall(upstream, Timeline()).ask("team", "billing", 5)
    assert report is not None
    assert (report.outcome, report.attempts, report.error, report.hits) == ("failed", 3, "c", [])


def test_an_answer_that_will_not_change_is_not_retried(upstream: FakeUpstream) -> None:
    upstream.failures = [UpstreamError("answered 401 Unauthorized", retryable=False)]
    timeline = Timeline()
    report = recall(upstream, timeline).ask("team", "billing", 5)
    assert report is not None and (report.outcome, report.attempts) == ("failed", 1)
    assert timeline.slept == []


def test_a_slow_upstream_costs_the_budget_and_no_more(upstream: FakeUpstream) -> None:
    timeline = Timeline()
    upstream.latency = 5.0
    report = recall(upstream, timeline).ask("team", "billing", 5)
    assert report is not None and report.outcome == "failed" and report.attempts == 1
    assert timeline.now == pytest.approx(1.0)
    assert report.took_ms == pytest.approx(1000.0)


def test_no_retry_starts_when_its_backoff_would_end_past_the_budget(
    upstream: FakeUpstream,
) -> None:
    timeline = Timeline()
    upstream.latency = 0.99
    upstream.failures = [down(), down()]
    report = recall(upstream, timeline).ask("team", "billing", 5)
    assert report is not None and report.attempts == 1 and timeline.slept == []
    assert timeline.now <= 1.0


def test_an_adapter_bug_is_a_failure_not_an_exception(upstream: FakeUpstream) -> None:
    upstream.failures = [ValueError("boom")]  # type: ignore[list-item]
    report = recall(upstream, Timeline()).ask("team", "billing", 5)
    assert report is not None and report.outcome == "failed"
    assert report.error == "ValueError: boom"


def test_failed_recalls_open_the_breaker_then_the_upstream_is_not_called(
    upstream: FakeUpstream,
) -> None:
    clock = FakeClock()
    upstream.failures = [UpstreamError("refused", retryable=False) for _ in range(3)]
    r = recall(upstream, Timeline(), clock=clock)
    for _ in range(3):
        assert r.ask("team", "billing", 5).outcome == "failed"  # type: ignore[union-attr]
    calls = len(upstream.calls)
    skipped = r.ask("team", "billing", 5)
    assert skipped is not None and skipped.outcome == "circuit_open"
    assert (skipped.attempts, skipped.took_ms, skipped.error) == (0, 0.0, "refused")
    assert len(upstream.calls) == calls
    snap = r.snapshot()
    assert (snap.asked, snap.failed, snap.circuit_open, snap.breaker.state) == (3, 3, 1, "open")


def test_the_half_open_trial_is_a_single_attempt_and_its_success_closes_the_breaker(
    upstream: FakeUpstream,
) -> None:
    clock = FakeClock()
    upstream.failures = [UpstreamError("refused", retryable=False)]
    r = recall(upstream, Timeline(), clock=clock, failures=1)
    assert r.ask("team", "billing", 5).outcome == "failed"  # type: ignore[union-attr]
    clock.advance(30)
    assert r.snapshot().breaker.state == "half_open"
    upstream.failures = [down()]
    trial = r.ask("team", "billing", 5)
    assert trial is not None and (trial.outcome, trial.attempts) == ("failed", 1)
    assert r.snapshot().breaker.state == "open"
    clock.advance(30)
    again = r.ask("team", "billing", 5)
    assert again is not None and again.outcome == "answered"
    assert r.snapshot().breaker.state == "closed"


def test_recalls_over_the_in_flight_bound_answer_busy_without_calling(
    upstream: FakeUpstream,
) -> None:
    entered, release = threading.Event(), threading.Event()

    def blocking(seconds: float) -> None:
        entered.set()
        release.wait(5)

    r = recall(upstream, Timeline(), in_flight=1)
    upstream.wait = blocking
    first = threading.Thread(target=r.ask, args=("team", "billing", 5))
    first.start()
    assert entered.wait(5)
    busy = r.ask("team", "billing", 5)
    release.set()
    first.join(5)
    assert busy is not None and busy.outcome == "busy"
    assert len(upstream.calls) == 1
    assert r.snapshot().busy == 1


def test_the_backoff_doubles_up_to_its_cap_and_jitters_below_it() -> None:
    policy = RetryPolicy(budget=10, retries=5, backoff=0.1, backoff_cap=0.3)
    assert [backoff_delay(n, policy, lambda: 1.0) for n in (1, 2, 3, 4)] == [0.1, 0.2, 0.3, 0.3]
    assert backoff_delay(2, policy, lambda: 0.0) == 0.0
    assert backoff_delay(2, policy, lambda: 0.25) == pytest.approx(0.05)


def test_a_kept_entry_is_named_after_its_upstream_and_its_id_there() -> None:
    from schemas.vocabulary import ID_PATTERN
    from service.application.recall import kept_id

    assert kept_id("central", "pg-1") == "central:pg-1"
    long = kept_id("central", "x" * 200)
    assert long.startswith("central:") and re.fullmatch(ID_PATTERN, long)
    assert kept_id("central", "x" * 200) == long != kept_id("central", "y" * 200)
    assert re.fullmatch(ID_PATTERN, kept_id("central", "has spaces/and slashes"))
