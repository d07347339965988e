"""The console in a real Chromium against the real server process.

Each test saves screenshots of the pages it visits in docs/screenshots/ (1280 px wide, one
at phone width); two of them are kept in the repository for the docs (docs/guide/console.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Response, expect, sync_playwright

from tests.e2e.test_server import Server
from tests.http import ADMIN, AGENT_ONE, AS_ADMIN, KEYS

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

EVENTS: list[dict[str, Any]] = [
    {
        "id": "pref-1",
        "tier": "A",
        "speaker": "Alice",
        "tags": ["diet"],
        "text": "I am allergic to peanuts, so never suggest satay for the team lunch.",
    },
    {
        "id": "db-decision",
        "tier": "A",
        "type": "decision",
        "confidence": 0.9,
        "speaker": "Alice",
        "tags": ["billing", "adr"],
        "text": "We decided to use PostgreSQL for the billing service: invoices need "
        "transactions, and the migration from MySQL runs this week.",
    },
    {
        "id": "standup-1",
        "tier": "C",
        "chain_type": "standup",
        "speaker": "Alice",
        "tags": ["standup"],
        "text": "Today I am finishing the billing migration to PostgreSQL; the invoice "
        "backfill runs tonight and I will watch the error budget.",
        "metadata": {"ticket": "BILL-142", "sprint": 31},
    },
    {
        "id": "standup-2",
        "tier": "C",
        "chain_type": "standup",
        "speaker": "Bob",
        "tags": ["standup"],
        "text": "Reviewing the billing API rate limits, then pairing with Alice on the "
        "migration runbook.",
    },
    {
        "id": "deploy-log",
        "tier": "E",
        "role": "tool",
        "text": "GET /invoices returned 503 at 09:14 during the billing migration window",
    },
    {
        "id": "migrate-pattern",
        "tier": "A",
        "kind": "pattern",
        "text": "When migrating a datastore, run the old and new stores side by side and "
        "compare their answers before switching reads.",
        "variants": ["billing: compare invoice totals per day", "search: compare top results"],
    },
]
NOTES = {
    "adr/012-billing-database.md": "# ADR 12: billing database\n\n"
    "We move billing from MySQL to PostgreSQL.\n\n"
    "Invoices need transactions across tables; the migration runs in one week.\n",
    "runbooks/migration.md": "# Migration runbook\n\n1. Freeze writes.\n2. Backfill invoices.\n"
    "3. Compare totals.\n4. Switch reads.\n",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The service with an admin key and an agent key for namespace ``one``, holding a
    day of work: events, a collection of notes and questions asked."""
    root = tmp_path_factory.mktemp("console")
    notes = root / "notes"
    for relative, text in NOTES.items():
        (notes / relative).parent.mkdir(parents=True, exist_ok=True)
        (notes / relative).write_text(text)
    running = Server(
        root / "data",
        {"STRATA_API_KEYS": KEYS, "STRATA_UI_SECRET": "e2e-console-secret-0123456789-abcdef"},
    )
    try:
        with httpx.Client(base_url=running.url, headers=AS_ADMIN, timeout=60) as api:
            events = [{**e, "namespace": "one"} for e in EVENTS]
            assert api.post("/v1/events", json={"events": events}).status_code == 201
            added = api.post(
                "/v1/collections", json={"name": "notes", "path": str(notes), "namespace": "one"}
            )
            assert added.status_code == 201, added.text
            for question in (
                "which database did we pick for billing?",
                "who is allergic to peanuts?",
                "what is the on-call rota for the kafka cluster?",
            ):
                asked = api.post("/v1/retrieve", json={"question": question, "namespace": "one"})
                assert asked.status_code == 200
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), f"the browser tests drive Debian's chromium at {CHROMIUM}"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-background-networking", "--no-first-run"],
        )
        yield launched
        launched.close()


class Console:
    """A browser tab on the console that fails the test on any script error, message of
    error (a CSP violation logs one) or failed request for a page's resource."""

    def __init__(self, browser: Browser, url: str, viewport: dict[str, int] = WIDE) -> None:
        self.context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        self.page: Page = self.context.new_page()
        self.url = url
        self.problems: list[str] = []
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.page.on("console", self._console)
        self.page.on("response", self._response)

    def _console(self, message: ConsoleMessage) -> None:
        # A page answered with an error status logs this too; resources are checked below.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.problems.append(message.text)

    def _response(self, response: Response) -> None:
        if response.request.resource_type != "document" and response.status >= 400:
            self.problems.append(f"{response.status} {response.url}")

    def open(self, path: str) -> Page:
        self.page.goto(self.url + path)
        return self.page

    def sign_in(self, key: str) -> Page:
        page = self.open("/ui/")
        expect(page).to_have_url(f"{self.url}/ui/sign-in?next=%2Fui")
        page.get_by_label("API key").fill(key)
        page.get_by_role("button", name="Sign in").click()
        expect(page).to_have_url(f"{self.url}/ui/")
        return page

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()
        assert self.problems == [], self.problems


@pytest.fixture
def console(browser: Browser, server: Server) -> Iterator[Console]:
    tab = Console(browser, server.url)
    yield tab
    tab.close()


def test_an_admin_searches_opens_a_tier_c_entry_and_promotes_it(console: Console) -> None:
    page = console.sign_in(ADMIN)
    page.get_by_label("Search memories").fill("billing migration")
    page.get_by_label("Namespace").fill("one")
    page.get_by_role("button", name="Search", exact=True).click()
    hits = page.locator("li.hit")
    expect(hits.first).to_be_visible()
    expect(page.locator("li.hit mark").first).to_be_visible()
    expect(page.locator("li.hit .bar-fill").first).to_be_attached()
    console.shot("e2e-search-results")

    page.locator("a.hit-id", has_text="standup-1").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("standup-1")
    expect(page.locator("article.entry")).to_contain_text("BILL-142")
    console.shot("e2e-entry")

    page.get_by_role("button", name="Promote to tier A").click()
    timeline = page.locator("ol.timeline")
    expect(timeline).to_contain_text("Promoted to tier A")
    expect(page.locator(".fields").first).to_contain_text("Expiresnever")
    expect(page.get_by_role("button", name="Promote to tier A")).to_have_count(0)
    console.shot("e2e-entry-promoted")


def test_search_results_fit_a_phone(browser: Browser, server: Server) -> None:
    phone = Console(browser, server.url, PHONE)
    try:
        page = phone.sign_in(ADMIN)
        page.goto(f"{server.url}/ui/?q=peanuts+lunch&namespace=one&retrieve=on")
        expect(page.locator("li.hit").first).to_be_visible()
        expect(page.get_by_role("heading", name="What retrieve answers")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "nothing runs off the side"
        phone.shot("e2e-search-phone")
    finally:
        phone.close()


def test_an_agent_cannot_open_jobs_or_another_namespace(console: Console) -> None:
    page = console.sign_in(AGENT_ONE)
    expect(page.get_by_role("navigation", name="Console")).not_to_contain_text("Jobs")
    answer = page.goto(f"{console.url}/ui/jobs")
    assert answer is not None and answer.status == 403
    expect(page.get_by_role("heading", level=1)).to_contain_text("Forbidden")
    console.shot("e2e-agent-jobs-forbidden")
    answer = page.goto(f"{console.url}/ui/?q=billing&namespace=two")
    assert answer is not None and answer.status == 403
    expect(page.locator("main")).to_contain_text("may not use namespace 'two'")
    answer = page.goto(f"{console.url}/ui/?q=billing")
    assert answer is not None and answer.status == 200
    expect(page.locator("li.hit").first).to_be_visible()


def test_a_form_posted_without_its_token_is_refused(console: Console, server: Server) -> None:
    page = console.sign_in(ADMIN)
    page.goto(f"{server.url}/ui/entries/standup-2?namespace=one")
    promote = page.locator("form", has=page.get_by_role("button", name="Promote to tier A"))
    promote.locator('input[name="csrf"]').evaluate("input => input.remove()")
    with page.expect_navigation():
        page.get_by_role("button", name="Promote to tier A").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Form refused")
    console.shot("e2e-csrf-refused")
    entry = httpx.get(f"{server.url}/v1/entries/standup-2?namespace=one", headers=AS_ADMIN)
    assert entry.json()["tier"] == "C"


def test_the_report_page_draws_its_chart(console: Console) -> None:
    page = console.sign_in(ADMIN)
    page.goto(f"{console.url}/ui/reports?namespace=one")
    chart = page.locator("svg.report-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.day-bar")).to_have_count(30)
    expect(chart.locator("circle.point")).not_to_have_count(0)
    expect(page.locator("ol.unanswered")).to_contain_text("kafka")
    console.shot("e2e-report")
    page.locator("ol.unanswered a", has_text="kafka").click()
    expect(page.get_by_label("Search memories")).to_have_value(
        "what is the on-call rota for the kafka cluster?"
    )
    page.get_by_role("link", name="Namespaces").click()
    expect(page.locator("section.namespace-stats")).to_contain_text("Embedding avoided")
    console.shot("e2e-namespaces")


def test_an_unanswered_question_becomes_a_reference_and_a_sweep_draws_its_curves(
    console: Console, server: Server
) -> None:
    with httpx.Client(base_url=server.url, headers=AS_ADMIN, timeout=60) as api:
        for question, answers in (
            ("Which database does billing use?", ["db-decision"]),
            ("What is Alice allergic to?", ["pref-1"]),
            ("How do we migrate a datastore?", ["migrate-pattern"]),
            ("What failed during the billing migration window?", ["deploy-log"]),
            ("What is Bob reviewing?", ["standup-2"]),
            ("What will Alice watch tonight?", ["standup-1"]),
        ):
            body = {"namespace": "one", "question": question, "answers": answers}
            assert api.post("/v1/references", json=body).status_code == 201
    page = console.sign_in(ADMIN)
    page.goto(f"{console.url}/ui/reports?namespace=one")
    page.locator("ol.unanswered li", has_text="kafka").get_by_role(
        "link", name="record as a reference"
    ).click()
    expect(page.get_by_role("textbox", name="Question")).to_have_value(
        "what is the on-call rota for the kafka cluster?"
    )
    page.get_by_label("Nothing in memory answers it").check()
    page.get_by_role("button", name="Record").click()
    rows = page.locator("section[aria-labelledby=references-title] tbody tr")
    expect(rows).to_have_count(7)
    expect(rows.last).to_contain_text("kafka")
    expect(rows.last).to_contain_text("console")
    page.get_by_role("button", name="Sweep now").click()
    expect(page.locator("#swept")).to_contain_text("7 references asked")
    expect(page.locator("svg.sweep-chart")).to_have_count(2)
    expect(page.locator("svg.sweep-chart polyline.series").first).to_be_visible()
    console.shot("e2e-calibration")
    with httpx.Client(base_url=server.url, headers=AS_ADMIN, timeout=60) as api:
        kept = api.get("/v1/references", params={"namespace": "one"}).json()
        assert [r["nothing"] for r in kept["references"]][-1] is True
        removed = kept["references"][-1]["id"]
    page.locator(
        "section[aria-labelledby=references-title] tbody tr", has_text="kafka"
    ).get_by_role("button").click()
    expect(rows).to_have_count(6)
    assert removed not in page.content()


TEAM = {
    "selective-embedding": "We choose selective embedding: only architectural decisions and "
    "recent discussions get vectors.",
    "ledger-postgres": "Replicas share one ledger in Postgres; a single node keeps it in SQLite.",
    "keyword-tantivy": "Keyword search runs on Tantivy, one index per replica, rebuilt from the "
    "ledger.",
    "discussions-expire": "Discussions expire after seven days and are then archived keyword-only.",
    "keys-per-agent": "Every agent gets its own API key, scoped to the namespaces it works in.",
    "release-train": "We release every second Tuesday; hotfixes may go out on any day.",
    "on-call": "On-call rotates weekly between the four platform engineers; handover is Monday "
    "at 10:00.",
    "backups": "The ledger is backed up every six hours to object storage and kept for 35 days.",
    "reviews": "Every change needs one approving review; changes to the ledger schema need two.",
    "console-html": "The admin console is server-rendered HTML with no JavaScript framework.",
}
"""The platform team's decisions of the guide's walkthrough (Retrieve and context)."""
KNOWN = [
    ("What do we embed?", "selective-embedding"),
    ("Which entries get vectors?", "selective-embedding"),
    ("Where does the ledger live?", "ledger-postgres"),
    ("What do we use for keyword search?", "keyword-tantivy"),
    ("How long are discussions kept?", "discussions-expire"),
    ("Do agents share an API key?", "keys-per-agent"),
    ("How often do we release?", "release-train"),
    ("Can a hotfix ship on a Friday?", "release-train"),
    ("Who is on call this week?", "on-call"),
    ("When is the on-call handover?", "on-call"),
    ("How often is the ledger backed up?", "backups"),
    ("How long do we keep backups?", "backups"),
    ("How many approvals does a change need?", "reviews"),
    ("Who must approve a schema change?", "reviews"),
    ("Does the console use React?", "console-html"),
    ("How often is the ledger schema migrated?", None),
    ("How long are API keys valid?", None),
    ("Do discussions get promoted automatically?", None),
    ("Is keyword search case sensitive?", None),
    ("Can discussions be deleted?", None),
    ("Which object storage do we use?", None),
    ("Is the ledger encrypted?", None),
    ("What is the on-call pay?", None),
    ("What is the office wifi password?", None),
]
"""The references the walkthrough's team records: the entry that answers, or none."""


def test_a_thumbs_down_a_sweep_and_the_report_of_what_it_changed(
    console: Console, server: Server
) -> None:
    asked = {"namespace": "platform", "question": "How often do we rotate API keys?"}
    with httpx.Client(base_url=server.url, headers=AS_ADMIN, timeout=60) as api:
        events = [
            {"namespace": "platform", "id": key, "tier": "A", "type": "decision", "text": text}
            for key, text in TEAM.items()
        ]
        assert api.post("/v1/events", json={"events": events}).status_code == 201
        before = api.post("/v1/retrieve", json=asked).json()
        assert before["strong_match"] and before["entries"][0]["id"] == "keys-per-agent"
        down = {"interaction_id": before["interaction_id"], "rating": "down", "nothing": True}
        reference = api.post("/v1/feedback", json=down).json()["reference_id"]
        again = api.post("/v1/retrieve", json=asked).json()
        assert (again["strong_match"], again["reference_id"]) == (False, reference)
        near = {**asked, "question": "Who can revoke an API key?"}
        assert api.post("/v1/retrieve", json=near).json()["strong_match"]
        for question, answer in KNOWN:
            known = {"answers": [answer]} if answer else {"nothing": True}
            body = {"namespace": "platform", "question": question, **known}
            assert api.post("/v1/references", json=body).status_code == 201
    page = console.sign_in(ADMIN)
    page.goto(f"{console.url}/ui/calibration?namespace=platform")
    page.get_by_role("button", name="Sweep now").click()
    swept = page.locator("#swept")
    expect(swept).to_contain_text("25 references asked")
    expect(swept).to_contain_text("Kept namespace v1: threshold 0.73 → 0.95")
    expect(page.locator("svg.sweep-chart")).to_have_count(2)
    console.shot("e2e-calibration-kept")
    with httpx.Client(base_url=server.url, headers=AS_ADMIN, timeout=60) as api:
        after = api.post("/v1/retrieve", json=near).json()
    assert not after["strong_match"] and after["calibration"]["version"] == 1
    assert after["reference_id"] is None
    page.goto(f"{console.url}/ui/reports?namespace=platform")
    changed = page.locator("section[aria-labelledby=calibration-title]")
    expect(changed).to_contain_text("Reference questions recorded that day: 25")
    expect(changed).to_contain_text("Version 1: threshold 0.73 → 0.95, floor 0.002 → 0.002")
    expect(changed).to_contain_text("in force")


def test_a_rescan_and_a_rebuild_report_back_on_their_pages(console: Console) -> None:
    page = console.sign_in(ADMIN)
    page.goto(f"{console.url}/ui/collections/notes")
    expect(page.locator("ul.files")).to_contain_text("adr/012-billing-database.md")
    page.get_by_role("button", name="Re-scan").click()
    expect(page.get_by_role("status")).to_contain_text("Re-scanned: 0 added, 0 changed")
    page.locator("ul.files a", has_text="migration.md").click()
    page.goto(page.url + "#L4")
    expect(page.locator("tr#L4")).to_contain_text("Backfill invoices")
    console.shot("e2e-document")

    page.goto(f"{console.url}/ui/jobs")
    page.get_by_role("button", name="Rebuild now").click()
    expect(page.locator(".rebuild-state")).to_have_text("done", timeout=30_000)
    console.shot("e2e-jobs")


def test_a_revised_decision_shows_its_chain_and_search_shows_it_current(
    console: Console, server: Server
) -> None:
    with httpx.Client(base_url=server.url, headers=AS_ADMIN, timeout=60) as api:
        revision = {
            "id": "db-decision-2",
            "namespace": "one",
            "tier": "A",
            "type": "decision",
            "text": "We decided to use PostgreSQL for the billing service, with the invoice "
            "change log partitioned by day.",
            "supersedes": ["db-decision"],
        }
        written = api.post("/v1/events", json={"events": [revision]})
        assert written.status_code == 201, written.text
    page = console.sign_in(ADMIN)
    page.goto(f"{console.url}/ui/?q=which+database+for+billing&namespace=one")
    expect(page.locator("a.hit-id", has_text="db-decision-2")).to_be_visible()
    expect(
        page.locator("a.hit-id", has_text="db-decision").filter(has_not_text="-2")
    ).to_have_count(0)
    page.goto(f"{console.url}/ui/?q=which+database+for+billing&namespace=one&superseded=on")
    expect(page.locator("li.hit.superseded")).to_contain_text("superseded by db-decision-2")
    console.shot("e2e-search-superseded")

    page.locator("li.hit.superseded a.hit-id").click()
    expect(page.locator("p.notice")).to_contain_text("Superseded by db-decision-2")
    chain = page.locator("ol.chain li")
    expect(chain).to_have_count(2)
    expect(chain.nth(1)).to_contain_text("current")
    expect(page.locator("ol.timeline")).to_contain_text("Superseded by db-decision-2")
    console.shot("e2e-entry-revisions")
