"""The few figures a person wants at a glance, read from this replica's metrics: what the
console's service page shows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from prometheus_client.samples import Sample

from service.domain.namespaces.stats import avoided
from service.telemetry.metrics import Metrics


@dataclass(frozen=True)
class Glance:
    """Counts since the process started; durations in milliseconds."""

    requests: int
    errors: int
    """Requests answered 5xx."""
    unavailable: int
    """Of those, 503s: an engine away."""
    limited: int
    """Requests refused 429: a caller over its limits."""
    searches: int
    search_p50_ms: float | None
    search_p95_ms: float | None
    stages_ms: Mapping[str, float]
    """Mean milliseconds of each step of a search."""
    cache_hit_ratio: float | None
    degraded: Mapping[str, int]
    entries_written: Mapping[str, int]
    tokens_embedded: int
    """Of entries, at write time and at read time (passages measured against a query)."""
    tokens_avoided: int
    """Of entries the tiers kept from the model at write time."""
    embedding_avoided: float | None
    """Share of the tokens of the entries written the tiers kept from the model, once the
    tokens embedded at write and read time are paid: as the namespaces' figures count it
    (``service.domain.namespaces.stats.avoided``), of what this process wrote."""
    engines: Mapping[str, bool]
    lag_seconds: float | None
    leads_jobs: bool | None
    jobs: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Runs ok and in error, and the last success (Unix seconds), by job."""


def at_a_glance(metrics: Metrics) -> Glance:
    found = _Samples(s for family in metrics.registry.collect() for s in family.samples)
    requests = found.by("strata_http_requests_total", "status")
    statuses = {int(code): count for code, count in requests.items()}
    misses = found.total("strata_query_cache_total", result="miss")
    hits = found.total("strata_query_cache_total", result="hit")
    written = found.total("strata_write_model_tokens_total")
    # Queries aside: plain RAG embeds them too, so no tier saves them.
    read = found.total("strata_read_model_tokens_total", kind="passage")
    kept = found.total("strata_write_model_tokens_avoided_total")
    searched = found.total("strata_search_duration_seconds_count")
    stage_sums = found.by("strata_search_stage_duration_seconds_sum", "stage")
    stage_counts = found.by("strata_search_stage_duration_seconds_count", "stage")
    jobs: dict[str, dict[str, float]] = defaultdict(dict)
    for s in found.named("strata_job_runs_total"):
        jobs[s.labels["job"]][s.labels["outcome"]] = s.value
    for s in found.named("strata_job_last_success_timestamp_seconds"):
        jobs[s.labels["job"]]["last_success"] = s.value
    lag = found.named("strata_replica_lag_seconds")
    leads = found.named("strata_replica_leads_jobs")
    return Glance(
        requests=int(sum(statuses.values())),
        errors=int(sum(n for code, n in statuses.items() if code >= 500)),
        unavailable=int(statuses.get(503, 0)),
        limited=int(statuses.get(429, 0)),
        searches=int(searched + hits),
        search_p50_ms=_quantile(found.buckets("strata_search_duration_seconds_bucket"), 0.5),
        search_p95_ms=_quantile(found.buckets("strata_search_duration_seconds_bucket"), 0.95),
        stages_ms={
            stage: 1000 * total / stage_counts[stage]
            for stage, total in stage_sums.items()
            if stage_counts.get(stage)
        },
        cache_hit_ratio=hits / (hits + misses) if hits + misses else None,
        degraded={k: int(v) for k, v in found.by("strata_search_degraded_total", "reason").items()},
        entries_written={
            k: int(v) for k, v in found.by("strata_entries_written_total", "tier").items()
        },
        tokens_embedded=int(written + read),
        tokens_avoided=int(kept),
        embedding_avoided=avoided(int(written), int(read), int(written + kept)),
        engines={s.labels["engine"]: s.value == 1 for s in found.named("strata_engine_up")},
        lag_seconds=lag[0].value if lag else None,
        leads_jobs=leads[0].value == 1 if leads else None,
        jobs=dict(jobs),
    )


class _Samples:
    def __init__(self, samples: Iterable[Sample]) -> None:
        self._by_name: dict[str, list[Sample]] = defaultdict(list)
        for s in samples:
            self._by_name[s.name].append(s)

    def named(self, name: str) -> list[Sample]:
        return self._by_name.get(name, [])

    def total(self, name: str, **labels: str) -> float:
        return sum(
            s.value
            for s in self.named(name)
            if all(s.labels.get(k) == v for k, v in labels.items())
        )

    def by(self, name: str, label: str) -> dict[str, float]:
        summed: dict[str, float] = defaultdict(float)
        for s in self.named(name):
            summed[s.labels[label]] += s.value
        return dict(summed)

    def buckets(self, name: str) -> list[tuple[float, float]]:
        """Cumulative counts by upper bound, every label set summed."""
        return sorted((float(le), count) for le, count in self.by(name, "le").items())


def _quantile(buckets: list[tuple[float, float]], q: float) -> float | None:
    """The ``q`` quantile in milliseconds, interpolated within its bucket as Prometheus's
    ``histogram_quantile`` does; None without observations."""
    bounds = buckets
    if not bounds or bounds[-1][1] == 0:
        return None
    rank = q * bounds[-1][1]
    lower, below = 0.0, 0.0
    for upper, count in bounds:
        if count >= rank:
            if upper == float("inf"):
                return 1000 * lower
            share = (rank - below) / (count - below) if count > below else 1.0
            return 1000 * (lower + (upper - lower) * share)
        lower, below = upper, count
    return None
