"""The upstream port's contract: FakeUpstream, and HttpUpstream asking a strata (the web
app in process, on fakes) over its REST API."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.domain.entries import Entry
from service.domain.ports import Upstream
from service.remote.upstream import HttpUpstream
from tests.api.conftest import fake_runtime, serve
from tests.fakes import FakeClock, FakeFiles, FakeUpstream, make_entry
from tests.http import at_address, write

Add = Callable[[Entry], None]


@pytest.fixture(params=["fake", "http"])
def upstream(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[tuple[Upstream, Add]]:
    if request.param == "fake":
        fake = FakeUpstream("central")
        yield fake, fake.add
        return
    for client in serve(fake_runtime(clock, FakeFiles())):

        def add(entry: Entry, client: TestClient[Litestar] = client) -> None:
            event = {
                "id": entry.id,
                "namespace": entry.namespace,
                "tier": entry.tier,
                "text": entry.text,
                "speaker": entry.speaker,
                "tags": list(entry.tags),
            }
            write(client, {k: v for k, v in event.items() if v is not None})

        http = HttpUpstream("http://unused", name="central", http=at_address(client, "127.0.0.1"))
        yield http, add  # the test client closes its transport


def test_a_matching_entry_comes_back_with_its_fields(upstream: tuple[Upstream, Add]) -> None:
    port, add = upstream
    add(make_entry("pg-1", "We chose PostgreSQL for billing.", namespace="team", speaker="ana"))
    hits = port.search("team", "PostgreSQL billing", 5, 5.0)
    first = hits[0]
    assert (first.entry.id, first.entry.namespace, first.entry.tier) == ("pg-1", "team", "A")
    assert first.entry.text == "We chose PostgreSQL for billing."
    assert first.entry.speaker == "ana"
    assert first.snippet and 0 < first.score <= 1
    assert port.name == "central"


def test_it_answers_at_most_the_limit(upstream: tuple[Upstream, Add]) -> None:
    port, add = upstream
    for n in range(4):
        add(make_entry(f"e{n}", f"billing note number {n}", namespace="team"))
    assert 1 <= len(port.search("team", "billing note", 2, 5.0)) <= 2


def test_an_empty_namespace_answers_nothing(upstream: tuple[Upstream, Add]) -> None:
    port, add = upstream
    add(make_entry("pg-1", "We chose PostgreSQL for billing.", namespace="team"))
    assert port.search("elsewhere", "PostgreSQL billing", 5, 5.0) == []
