"""Whatever a client sends, the answer is a success or a clear 4xx naming what is wrong,
never a 5xx, and a refused request writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from tests.api.conftest import fake_runtime, serve
from tests.fakes import FakeClock, FakeFiles

TEXT = st.text(max_size=40)
ISO_TIMES = st.one_of(
    st.datetimes().map(lambda d: d.isoformat()),
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    st.sampled_from(
        [
            "9999-12-31T23:59:59-00:01",
            "0001-01-01T00:00:00+00:01",
            "9999-12-30T00:00:00Z",
            "1970-01-01T00:00:00Z",
            "not a time",
            "",
        ]
    ),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)
)
EVENT = st.fixed_dictionaries(
    {"text": TEXT, "tier": st.sampled_from(["A", "C", "E", "B", ""])},
    optional={
        "id": st.one_of(TEXT, st.from_regex(r"\A[A-Za-z0-9_.:@-]{1,20}\Z")),
        "namespace": st.one_of(TEXT, st.sampled_from(["team", "a b", "x" * 65])),
        "timestamp": ISO_TIMES,
        "ttl_days": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers()),
        "tags": st.lists(TEXT, max_size=4),
        "metadata": st.dictionaries(TEXT, SCALARS, max_size=4) | JSON,
        "kind": st.sampled_from(["memory", "pattern", "idea"]),
        "confidence": st.floats(allow_nan=False, allow_infinity=False),
        "variants": st.lists(TEXT, max_size=2),
        "thread": TEXT,
        "speaker": TEXT,
        "extra": JSON,
    },
)
SEARCH = st.fixed_dictionaries(
    {"query": TEXT},
    optional={
        "limit": st.integers(),
        "mode": st.sampled_from(["auto", "bm25", "vector", "hybrid", "magic"]),
        "tiers": st.lists(st.sampled_from(["A", "C", "E", "Z"]), max_size=3),
        "since": ISO_TIMES,
        "until": ISO_TIMES,
        "min_score": st.floats(allow_nan=False, allow_infinity=False),
        "namespace": TEXT,
        "tags": st.lists(TEXT, max_size=2),
        "include_archived": st.booleans(),
    },
)
CLEAR = {400, 403, 404, 409, 413, 415, 422}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient[Litestar]]:
    """One app for every example: each property holds request by request."""
    yield from serve(fake_runtime(FakeClock(), FakeFiles(), max_batch="5"))


def stored(client: TestClient[Litestar]) -> int:
    return int(client.get("/v1/stats").json()["totals"]["entries"])


def is_clear_problem(response: Any) -> bool:
    body = response.json()
    return (
        response.status_code in CLEAR
        and response.headers["content-type"].startswith("application/problem+json")
        and bool(body["detail"])
    )


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(events=st.one_of(st.lists(EVENT, min_size=0, max_size=6), JSON))
def test_any_batch_is_stored_whole_or_refused_clearly(
    client: TestClient[Litestar], events: Any
) -> None:
    before = stored(client)
    response = client.post("/v1/events", json={"events": events})
    if response.status_code == 201:
        written = response.json()["ids"]
        assert len(written) == len(events)
        for event_id, event in zip(written, events, strict=True):
            namespace = event.get("namespace", "default")
            got = client.get(f"/v1/entries/{event_id}", params={"namespace": namespace})
            assert got.status_code == 200, got.text
    else:
        assert is_clear_problem(response), response.text
        assert stored(client) == before


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=st.one_of(SEARCH, JSON))
def test_any_search_answers_or_is_refused_clearly(client: TestClient[Litestar], body: Any) -> None:
    response = client.post("/v1/search", json=body)
    assert response.status_code == 200 or is_clear_problem(response), response.text


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.binary(max_size=64))
def test_any_bytes_are_refused_clearly(client: TestClient[Litestar], raw: bytes) -> None:
    response = client.post("/v1/events", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 201 or is_clear_problem(response), response.text
