"""What each console page shows, and what its forms do, on the fakes."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from service.bootstrap import Runtime
from service.domain.model.references import Fit
from tests.fakes import FakeClock, FakeFiles
from tests.http import AS_ADMIN
from tests.ui.conftest import Client, token

ROOT = "/srv/notes"
NOTE = "# Event bus\n\nWe adopt NATS for the event bus.\n\nIt replaces the cron jobs.\n"


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles(
        {ROOT: {"adr/012-bus.md": NOTE.encode(), "people.md": b"Alice owns billing.\n"}}
    )


def write(client: Client, *events: dict[str, Any]) -> None:
    answer = client.post("/v1/events", json={"events": list(events)}, headers=AS_ADMIN)
    assert answer.status_code == 201, answer.text


def text_of(html: str) -> str:
    """The page's text, tags and runs of blanks collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


STANDUP = {
    "id": "standup-1",
    "namespace": "one",
    "tier": "C",
    "speaker": "Alice",
    "text": "Today I am finishing the billing migration.",
    "tags": ["standup"],
    "metadata": {"ticket": "BILL-42"},
}
FACT = {
    "id": "pref-1",
    "namespace": "one",
    "tier": "A",
    "text": "Alice is allergic to peanuts.",
    "type": "fact",
}


def test_search_shows_tiers_scores_their_parts_and_marked_terms(admin: Client) -> None:
    write(admin, STANDUP, FACT)
    page = admin.get("/ui/", params={"q": "billing migration", "namespace": "one"})
    assert page.status_code == 200
    html = page.text
    assert '<a class="hit-id" href="/ui/entries/standup-1?namespace=one">standup-1</a>' in html
    assert '<span class="tier tier-C" title="Tier C">C</span>' in html
    assert "<mark>billing</mark> <mark>migration</mark>" in html
    parts = re.findall(r"<dt>(BM25|vector|tier|recency|rerank)</dt>", html)
    assert parts[:2] == ["BM25", "vector"]
    assert re.search(r'class="bar-fill" x="0" y="0" width="100.0"', html), "the best BM25 is full"
    assert "Namespace: one" in text_of(html)
    # The bars are what the score was computed from, not addends of it, and say so.
    note = "What the score was computed from, each on its own scale (not parts that add up to it):"
    assert text_of(html).count(note) == html.count('<dl class="parts"') >= 1
    assert "parts the score is made of" not in admin.get("/ui/").text


def test_a_decision_shows_how_far_what_the_question_asks_for_moved_it(admin: Client) -> None:
    decision = {**FACT, "id": "cache-1", "text": "We decided on Redis for the cache."}
    write(admin, {**decision, "type": "decision"})

    def intent_part(question: str) -> float:
        html = admin.get("/ui/", params={"q": question, "namespace": "one"}).text
        part = r'<dt>kind asked for</dt>.*?<span class="num">([+-][0-9.]+)</span>'
        found = re.search(part, html, re.S)
        assert found, html
        return float(found.group(1))

    # A word of deciding is one more reason to put the decision first.
    assert intent_part("what did we decide on the cache?") > intent_part("which cache")


def test_search_filters_reach_the_search(admin: Client) -> None:
    write(admin, STANDUP, FACT)
    only_a = admin.get("/ui/", params={"q": "Alice", "namespace": "one", "tier": "A"}).text
    assert "pref-1" in only_a and "standup-1" not in only_a
    by_tag = admin.get("/ui/", params={"q": "Alice", "namespace": "one", "tags": "standup"}).text
    assert "standup-1" in by_tag and "pref-1" not in by_tag
    later = admin.get("/ui/", params={"q": "Alice", "namespace": "one", "since": "2027-02-01"})
    assert "Nothing found in one" in later.text
    bad = admin.get("/ui/", params={"q": "Alice", "until": "2027-13-45"})
    assert bad.status_code == 200
    assert "until: " in text_of(bad.text)


def test_search_says_when_it_relaxed_or_ran_degraded(admin: Client, runtime: Runtime) -> None:
    write(admin, FACT)
    relaxed = admin.get("/ui/", params={"q": "peanuts", "namespace": "one", "tier": "E"}).text
    assert "pref-1" in relaxed and "Relaxed:" in relaxed
    runtime.stores.degraded.append("no embedding model: searches use BM25 only")
    degraded = admin.get("/ui/", params={"q": "peanuts", "namespace": "one"}).text
    assert "Degraded:" in degraded and "searches use BM25 only" in degraded


def test_search_says_when_nothing_is_relevant_and_shows_the_weak_on_request(
    admin: Client,
) -> None:
    write(admin, FACT)
    html = admin.get("/ui/", params={"q": "kubernetes upgrade plan", "namespace": "one"}).text
    page = text_of(html)
    assert "0 results" in page and "pref-1" not in page
    assert "Nothing relevant in one: 1 result scored below the relevance floor. Show them" in page
    link = re.search(r'<a href="([^"]*weak=on[^"]*)">Show them</a>', html)
    assert link is not None
    shown = admin.get(link.group(1).replace("&amp;", "&")).text
    assert "pref-1" in shown and "Nothing relevant" not in shown
    assert 'name="weak" value="on" checked' in shown
    asked = {"q": "kubernetes upgrade plan", "namespace": "one", "retrieve": "on"}
    answer = text_of(admin.get("/ui/", params=asked).text)
    assert "no strong match" in answer
    assert "Nothing relevant in memory: no entry scored above the relevance floor." in answer


def test_the_retrieve_toggle_shows_the_verdict_and_reasoning_patterns(admin: Client) -> None:
    pattern = {
        "id": "how",
        "namespace": "one",
        "tier": "A",
        "kind": "pattern",
        "text": "When choosing a datastore for billing, weigh transactions first.",
        "variants": ["payments: require ACID"],
    }
    write(admin, FACT, pattern)
    params = {"q": "datastore for billing", "namespace": "one", "retrieve": "on"}
    html = admin.get("/ui/", params=params).text
    assert "What retrieve answers" in html
    assert "strong match" in html
    verdict = r"answer confidence <strong>[01]\.\d\d+</strong>, (at or above|below) the threshold"
    assert re.search(verdict, html)
    assert "Reasoning patterns" in html and "payments: require ACID" in html
    without = admin.get("/ui/", params={"q": "datastore", "namespace": "one"}).text
    assert "What retrieve answers" not in without
    reference = {"namespace": "one", "question": "Datastore for billing?", "nothing": True}
    made = admin.post("/v1/references", json=reference, headers=AS_ADMIN).json()
    judged = text_of(admin.get("/ui/", params=params).text)
    assert "no strong match" in judged
    assert f"the team's verdict: reference question {made['id']}" in judged


def test_a_collection_hit_links_to_its_lines_in_the_document_viewer(admin: Client) -> None:
    added = admin.post(
        "/v1/collections",
        json={"name": "notes", "path": ROOT, "namespace": "one"},
        headers=AS_ADMIN,
    )
    assert added.status_code == 201, added.text
    html = admin.get("/ui/", params={"q": "NATS event bus", "namespace": "one"}).text
    link = re.search(r'href="(/ui/documents\?path=notes%2Fadr%2F012-bus.md#L\d+)"', html)
    assert link, html
    viewer = admin.get(link.group(1).split("#")[0])
    assert viewer.status_code == 200
    assert '<tr id="L3"><td class="ln"><a href="#L3"' in viewer.text
    assert "We adopt NATS for the event bus." in viewer.text


def test_the_entry_page_shows_fields_metadata_expiry_and_history(admin: Client) -> None:
    write(admin, STANDUP)
    html = admin.get("/ui/entries/standup-1", params={"namespace": "one"}).text
    shown = text_of(html)
    assert "Today I am finishing the billing migration." in shown
    assert "Speaker Alice" in shown and "ticket BILL-42" in shown
    assert "Expires 2027-01-22 08:00:00 UTC" in shown
    assert re.search(r"Created\s+by admin-key|Created by key:[0-9a-f]{8}", shown)
    assert "Promote to tier A" in html


def test_promoting_from_the_entry_page_shows_in_its_history(admin: Client) -> None:
    write(admin, STANDUP)
    page = admin.get("/ui/entries/standup-1", params={"namespace": "one"})
    answer = admin.post("/ui/entries/standup-1/promote?namespace=one", data={"csrf": token(page)})
    assert answer.status_code == 200
    assert str(answer.url).endswith("/ui/entries/standup-1?namespace=one")
    shown = text_of(answer.text)
    assert "Tier A" in shown and "Expires never" in shown
    assert "Promoted to tier A" in shown
    assert "Promote to tier A" not in answer.text


def test_deleting_asks_first_then_leaves_the_history(admin: Client) -> None:
    write(admin, FACT)
    confirm = admin.get("/ui/entries/pref-1/delete", params={"namespace": "one"})
    assert confirm.status_code == 200 and "Delete this entry?" in confirm.text
    assert admin.get("/v1/entries/pref-1?namespace=one", headers=AS_ADMIN).status_code == 200
    done = admin.post("/ui/entries/pref-1/delete?namespace=one", data={"csrf": token(confirm)})
    assert done.status_code == 200
    assert "This entry was deleted" in done.text and "Deleted" in text_of(done.text)
    assert admin.get("/v1/entries/pref-1?namespace=one", headers=AS_ADMIN).status_code == 404
    assert admin.get("/ui/entries/never-was", params={"namespace": "one"}).status_code == 404


def test_the_namespaces_page_counts_per_tier_and_the_embedding_avoided(admin: Client) -> None:
    write(admin, STANDUP, FACT, {"namespace": "one", "tier": "E", "text": "GET /invoices 503"})
    shown = text_of(admin.get("/ui/namespaces").text)
    assert "Entries 3" in shown and "Vectors 2" in shown
    assert re.search(r"Embedding avoided \d+\.\d%", shown)
    assert "one" in shown


def test_the_report_draws_thirty_days_and_links_unanswered_questions(
    admin: Client, clock: FakeClock
) -> None:
    write(admin, FACT)
    for question in ("peanuts?", "who owns the kafka cluster?"):
        asked = admin.post(
            "/v1/retrieve", json={"question": question, "namespace": "one"}, headers=AS_ADMIN
        )
        assert asked.status_code == 200
    page = admin.get("/ui/reports", params={"namespace": "one"})
    assert page.status_code == 200
    html = page.text
    assert len(re.findall(r'<rect class="day-bar"', html)) == 30
    assert re.findall(r'<circle class="point"[^>]*data-day="2027-01-15"', html)
    assert 'href="/ui/?q=who+owns+the+kafka+cluster%3F&amp;namespace=one"' in html
    assert re.search(r"answer confidence [01]\.\d\d · <a [^>]*>record as a reference</a>", html)
    recorded = "/ui/calibration?namespace=one&amp;question=who+owns+the+kafka+cluster%3F"
    assert f'href="{recorded}"' in html
    earlier = admin.get("/ui/reports", params={"namespace": "one", "date": "2027-01-10"}).text
    assert "2027-01-10" in earlier and 'data-day="2027-01-15"' not in earlier


def test_the_report_tells_the_references_recorded_and_what_the_fits_changed(
    admin: Client, runtime: Runtime, clock: FakeClock
) -> None:
    write(admin, FACT)
    for question in ("peanuts?", "who owns the kafka cluster?"):
        body = {"namespace": "one", "question": question, "nothing": True}
        assert admin.post("/v1/references", json=body, headers=AS_ADMIN).status_code == 201
    before = admin.get("/ui/reports", params={"namespace": "one"}).text
    assert "Reference questions recorded that day: 2 (admin 2); 2 in all." in before
    assert "No sweep kept a fit that day." in before
    held = {"youden_j": 0.5, "no_result": 0.9, "top10_cost": 0.0}
    figures = {
        "references": 12,
        "held_out": {"in_force": held, "fitted": {**held, "youden_j": 0.8}},
    }
    runtime.stores.ledger.add_fit(Fit("one", 0, 0.6, 0.003, clock.now, "admin", figures))
    runtime.services.answers.answerer.tunings.forget()  # as a sweep here does
    after = admin.get("/ui/reports", params={"namespace": "one"}).text
    assert "Version 1: threshold 0.73 → 0.6, floor 0.002 → 0.003" in after
    assert "Youden's J 0.500 → 0.800, unanswerable given nothing 90% → 90%" in after
    assert "12 references · in force" in after


def test_a_sweep_from_the_calibration_page_says_what_it_asked_and_kept(admin: Client) -> None:
    write(admin, FACT)
    body = {"namespace": "one", "question": "peanuts?", "nothing": True}
    assert admin.post("/v1/references", json=body, headers=AS_ADMIN).status_code == 201
    page = admin.get("/ui/calibration", params={"namespace": "one"})
    swept = admin.post("/ui/calibration/sweep?namespace=one", data={"csrf": token(page)})
    assert swept.status_code == 200
    notice = re.search(r'id="swept">(.*?)</p>', swept.text, re.S)
    assert notice is not None
    assert re.search(r"1 reference asked in \d+ ms\.", notice.group(1))
    assert "The calibration in force stays." in notice.group(1)


def test_jobs_are_listed_run_and_the_rebuild_started_by_admins(admin: Client) -> None:
    page = admin.get("/ui/jobs")
    assert page.status_code == 200
    assert 'id="job-expire_c_tier"' in page.text
    ran = admin.post("/ui/jobs/optimize_indexes/run", data={"csrf": token(page)})
    assert ran.status_code == 200
    row = re.search(r'id="job-optimize_indexes".*?</tr>', ran.text, re.S)
    assert row and '<td class="num">1</td>' in row.group(0)
    admin.post("/ui/jobs/rebuild", data={"csrf": token(page)})
    progress = admin.get("/ui/jobs/rebuild/progress").json()
    assert progress["state"] in ("running", "done")
    assert admin.post("/ui/jobs/nope/run", data={"csrf": token(page)}).status_code == 404


def test_collections_list_files_and_rescan_for_admins(admin: Client, files: FakeFiles) -> None:
    admin.post(
        "/v1/collections",
        json={"name": "notes", "path": ROOT, "namespace": "one"},
        headers=AS_ADMIN,
    )
    listed = admin.get("/ui/collections")
    assert '<a href="/ui/collections/notes">notes</a>' in listed.text
    page = admin.get("/ui/collections/notes")
    assert "adr/012-bus.md" in page.text and "people.md" in page.text
    files.roots[ROOT]["new.md"] = b"# New\n\nA new note.\n"
    done = admin.post("/ui/collections/notes/rescan", data={"csrf": token(page)})
    assert done.status_code == 200
    assert "Re-scanned: 1 added, 0 changed, 0 removed, 2 unchanged" in text_of(done.text)
    assert "new.md" in done.text
    assert admin.get("/ui/collections/notes/progress").json()["scanning"] is None


def test_a_rescan_lists_what_it_skipped_and_a_refused_one_says_why(
    admin: Client, files: FakeFiles, runtime: Runtime
) -> None:
    admin.post(
        "/v1/collections",
        json={"name": "notes", "path": ROOT, "namespace": "one"},
        headers=AS_ADMIN,
    )
    page = admin.get("/ui/collections/notes")
    files.roots[ROOT]["latin1.md"] = "caf\xe9\n".encode("latin-1")
    done = admin.post("/ui/collections/notes/rescan", data={"csrf": token(page)})
    assert done.status_code == 200
    assert (
        "1 skipped; each keeps what an earlier scan indexed of it: "
        "notes/latin1.md: not UTF-8 text (byte 3)"
    ) in text_of(done.text)
    domain = runtime.services.collections.collections
    domain.rules = dataclasses.replace(domain.rules, roots=("/home",))  # as after a restart
    refused = admin.post("/ui/collections/notes/rescan", data={"csrf": token(page)})
    assert refused.status_code == 409
    assert (
        f", {ROOT}, is outside the folders collections may read (STRATA_COLLECTION_ROOTS): "
        "/home; nothing was changed"
    ) in text_of(refused.text)


def test_an_agent_sees_its_namespaces_and_no_admin_page(agent: Client) -> None:
    home = agent.get("/ui/")
    assert home.status_code == 200
    assert 'href="/ui/jobs"' not in home.text
    assert agent.get("/ui/jobs").status_code == 403
    assert agent.get("/ui/jobs/rebuild/progress").status_code == 403
    assert 'href="/ui/service"' not in home.text
    assert agent.get("/ui/service").status_code == 403
    refused = agent.get("/ui/", params={"q": "anything", "namespace": "two"})
    assert refused.status_code == 403
    assert "may not use namespace &#39;two&#39;" in refused.text
    assert agent.get("/ui/reports", params={"namespace": "two"}).status_code == 403
    assert agent.get("/ui/entries/x", params={"namespace": "two"}).status_code == 403


def test_an_agent_may_not_promote_or_rescan(agent: Client, admin: Client) -> None:
    write(admin, STANDUP)
    page = agent.get("/ui/entries/standup-1", params={"namespace": "one"})
    assert page.status_code == 200 and "Promote to tier A" not in page.text
    sent = {"csrf": token(page)}
    assert agent.post("/ui/entries/standup-1/promote?namespace=one", data=sent).status_code == 403
    admin.post(
        "/v1/collections",
        json={"name": "notes", "path": ROOT, "namespace": "one"},
        headers=AS_ADMIN,
    )
    collection = agent.get("/ui/collections/notes")
    assert collection.status_code == 200 and "Re-scan" not in collection.text
    assert agent.post("/ui/collections/notes/rescan", data=sent).status_code == 403


def test_unknown_pages_and_bad_addresses_are_pages_too(admin: Client) -> None:
    missing = admin.get("/ui/no/such/page")
    assert missing.status_code == 404 and "There is no such page" in missing.text
    bad = admin.get("/ui/entries/not%20an%20id")
    assert bad.status_code == 422 and "<html" in bad.text


def test_the_service_page_shows_this_replica_at_a_glance(admin: Client) -> None:
    events = [
        {"tier": "A", "text": "we adopt NATS for the event bus", "namespace": "one"},
        {"tier": "E", "text": "nats deploy finished", "namespace": "one"},
    ]
    assert admin.post("/v1/events", json={"events": events}, headers=AS_ADMIN).is_success
    for _ in range(2):  # the second is answered from the cache
        search = {"query": "event bus", "namespace": "one"}
        assert admin.post("/v1/search", json=search, headers=AS_ADMIN).is_success
    page = admin.get("/ui/service")
    assert page.status_code == 200
    text = text_of(page.text)
    assert "Searches 2 50.0% from the query cache" in text
    assert "Requests" in text and "A 1 E 1" in text
    shown = (
        r"Embedding avoided \d+\.\d% of the entries written here: \d+ tokens kept from the model"
    )
    assert re.search(shown, text)
    for stage in ("bm25", "embed", "fusion", "hydration", "vector"):
        assert f">{stage}</th>" in page.text
    assert "up vector store" in text


def test_the_retrieve_toggle_is_a_preview_not_logged(admin: Client) -> None:
    """The console's retrieve only shows what an agent would get: the daily report counts
    no question for it (docs/guide/console.md says so)."""
    write(admin, FACT)
    params = {"q": "datastore for billing", "namespace": "one", "retrieve": "on"}
    assert "What retrieve answers" in admin.get("/ui/", params=params).text
    report = admin.get("/v1/reports/daily", params={"namespace": "one"}, headers=AS_ADMIN)
    assert report.status_code == 200, report.text
    assert report.json()["questions"] == 0


def test_a_search_naming_no_namespace_opens_where_entries_are(admin: Client) -> None:
    """The README writes to alice: the console's first search looks there, not in an empty
    default namespace, and says why."""
    write(admin, FACT | {"namespace": "alice"}, FACT | {"id": "pref-2", "namespace": "bob"})
    page = admin.get("/ui/", params={"q": "peanuts"}).text
    assert "pref-1" in page
    assert 'name="namespace" value="alice"' in page
    assert "(the first holding entries: your key's default, default, holds none)" in text_of(page)
    write(admin, FACT | {"id": "pref-3", "namespace": "default"})
    again = admin.get("/ui/", params={"q": "peanuts"}).text
    assert "pref-3" in again and "(your key's default)" in text_of(again)
