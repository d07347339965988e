"""The console's search page with an upstream: its hits marked, not linked as local entries."""

from __future__ import annotations

import pytest

from service.bootstrap import Runtime
from service.settings import Settings
from tests.api.conftest import fake_stores, numbered
from tests.fakes import FakeClock, FakeFiles, FakeUpstream, make_entry
from tests.http import KEYS
from tests.ui.conftest import SECRET, Client


@pytest.fixture
def runtime(clock: FakeClock, files: FakeFiles) -> Runtime:
    upstream = FakeUpstream("central")
    upstream.add(make_entry("pg-1", "We chose PostgreSQL for billing.", namespace="one"))
    settings = Settings.from_env(
        {
            "STRATA_API_KEYS": KEYS,
            "STRATA_UI_SECRET": SECRET,
            "STRATA_UPSTREAM_URL": "http://central.test",
        }
    )
    return numbered(settings, fake_stores(clock, files, upstream=upstream), clock)


def test_upstream_hits_are_marked_and_not_linked_as_entries_here(admin: Client) -> None:
    page = admin.get("/ui/", params={"q": "PostgreSQL billing", "namespace": "one"}).text
    assert "upstream central" in page
    assert "these results come from central" in page
    assert "pg-1" in page and "/ui/entries/pg-1" not in page


def test_upstream_entries_of_an_answer_are_marked_too(admin: Client) -> None:
    params = {"q": "PostgreSQL billing", "namespace": "one", "retrieve": "on"}
    page = admin.get("/ui/", params=params).text
    assert page.count(">upstream central</span>") == 2  # the answer's entry, the hit
    assert "/ui/entries/pg-1" not in page
