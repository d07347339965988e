"""The console's view of revised decisions: an entry's chain, superseded hits on demand,
memory as it was."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.fakes import FakeClock
from tests.ui.conftest import Client
from tests.ui.test_pages import text_of, write

V1 = {"id": "v1", "namespace": "one", "tier": "A", "text": "Ledger decision: use SQLite."}
V2 = {"id": "v2", "namespace": "one", "tier": "A", "text": "Ledger decision: use PostgreSQL."}
V3 = {
    "id": "v3",
    "namespace": "one",
    "tier": "A",
    "text": "Ledger decision: PostgreSQL, partitioned.",
}


def revise(admin: Client, clock: FakeClock) -> None:
    write(admin, V1)
    clock.advance(86_400)
    write(admin, {**V2, "supersedes": ["v1"]})
    clock.advance(86_400)
    write(admin, {**V3, "supersedes": ["v2"]})


def test_an_entry_shows_its_chain_of_revisions(admin: Client, clock: FakeClock) -> None:
    revise(admin, clock)
    page = admin.get("/ui/entries/v2", params={"namespace": "one"})
    assert page.status_code == 200
    text = text_of(page.text)
    assert "Superseded by v3" in text
    chain = page.text[page.text.index('class="chain"') :]
    assert chain.index(">v1<") < chain.index("v2</strong>") < chain.index(">v3<")
    assert "current" in text_of(chain[chain.index(">v3<") :])
    assert "Superseded by v3" in text_of(page.text[page.text.index("timeline") :])

    first = text_of(admin.get("/ui/entries/v1", params={"namespace": "one"}).text)
    assert "Revisions" in first and "Superseded by v2" in first


def test_search_leaves_superseded_entries_out_unless_asked(admin: Client, clock: FakeClock) -> None:
    revise(admin, clock)
    query = {"q": "ledger decision", "namespace": "one"}
    plain = admin.get("/ui/", params=query).text
    hits = plain[plain.index('class="hits"') :]
    assert 'href="/ui/entries/v3?namespace=one">v3</a>' in hits
    assert 'href="/ui/entries/v1?namespace=one">v1</a>' not in hits
    left_out = text_of(plain[plain.index("left-out") : plain.index('class="hits"')])
    assert left_out.startswith('left-out">Left out as superseded: v1 (by v2 ), v2 (by v3 )')
    every = admin.get("/ui/", params={**query, "superseded": "on"}).text
    assert 'class="hit superseded"' in every
    assert "superseded by" in text_of(every) and ">v1</a>" in every


def test_search_as_of_a_day_shows_the_decision_of_that_day(admin: Client, clock: FakeClock) -> None:
    write(admin, V1)
    day = clock.now
    clock.advance(3 * 86_400)
    write(admin, {**V2, "supersedes": ["v1"]})
    then = datetime.fromtimestamp(day, UTC).date().isoformat()
    page = admin.get("/ui/", params={"q": "ledger decision", "namespace": "one", "as_of": then})
    hits = page.text[page.text.index('class="hits"') :]
    assert 'href="/ui/entries/v1?namespace=one">v1</a>' in hits
    assert 'href="/ui/entries/v2?namespace=one">v2</a>' not in hits
    bad = admin.get("/ui/", params={"q": "ledger", "namespace": "one", "as_of": "soon"})
    assert "as_of: not an ISO 8601 timestamp: 'soon'" in text_of(bad.text).replace("&#39;", "'")


def test_the_report_page_lists_the_revisions_of_the_day(admin: Client, clock: FakeClock) -> None:
    revise(admin, clock)
    text = text_of(admin.get("/ui/reports", params={"namespace": "one"}).text)
    assert "Decisions revised 1" in text and "v2 superseded by v3" in text
