"""The console over the real stores (SQLite, Chroma, Tantivy, the real model): every page
it serves, walked by every kind of viewer before and after the scheduled jobs ran; the
sessions signing out ends; and what a page may not write."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.params import QueryParameter
from litestar.routes import HTTPRoute
from litestar.testing import TestClient
from litestar.testing import transport as transports

from service.app import create_app
from service.bootstrap import Runtime
from service.settings import Settings
from service.ui.forms import SearchForm
from service.ui.routes.collections import REPORT
from service.ui.session import COOKIE
from tests.http import ADMIN, AGENT_ONE, AS_ADMIN, KEYS, LOCAL
from tests.ui.conftest import SECRET, sign_in, token

OpenStores = Callable[[Settings], Runtime]

EVENTS: list[dict[str, Any]] = [
    {
        "id": "db-decision",
        "tier": "A",
        "type": "decision",
        "confidence": 0.9,
        "speaker": "Alice",
        "text": "We decided to use PostgreSQL for the billing service: invoices need transactions.",
    },
    {
        "id": "standup-1",
        "tier": "C",
        "speaker": "Alice",
        "tags": ["standup"],
        "text": "Today I am finishing the billing migration to PostgreSQL.",
        "metadata": {"ticket": "BILL-142"},
    },
    {
        "id": "old-c",
        "tier": "C",
        "text": "Last year's plan for the billing backfill.",
        "timestamp": "2026-01-01T09:00:00Z",
        "ttl_days": 1,
    },
    {"id": "old-log", "tier": "E", "text": "cron ran", "timestamp": "2020-01-01T00:00:00Z"},
    {
        "id": "migrate-pattern",
        "tier": "A",
        "kind": "pattern",
        "text": "When migrating a datastore, compare the old and new answers first.",
        "variants": ["billing: compare invoice totals per day"],
    },
]
REVISION = {
    "id": "db-decision-2",
    "tier": "A",
    "type": "decision",
    "text": "We decided to use PostgreSQL for billing, with the change log partitioned by day.",
    "supersedes": ["db-decision"],
}
NOTES = {"runbook.md": "# Runbook\n\n1. Freeze writes.\n2. Backfill invoices.\n"}
EDGE_DAYS = ["9999-12-31", "0001-01-01", "garbage", "2027-01-15"]
SAMPLES: dict[str, list[str]] = {
    "date": EDGE_DAYS,
    "since": EDGE_DAYS,
    "until": EDGE_DAYS,
    "as_of": EDGE_DAYS,
    "q": ["billing migration", "the", "x" * 2000, "which database for billing?"],
    "namespace": ["one", "two", "../..", ""],
    "tiers": ["A", "E", "Z", "C"],
    "mode": ["vector", "bm25", "garbage", "auto"],
    "limit": ["100", "garbage", "0", "10"],
    "speaker": ["Alice", "", "Nobody"],
    "tags": ["standup", "", "a,b,,c"],
    "archived": ["on", "", "on"],
    "superseded": ["on", "", "on"],
    "weak": ["on", "", ""],
    "retrieve": ["on", "on", "on", "on"],
    "path": [
        "notes/runbook.md",
        "notes/../../../etc/passwd",
        "garbage",
        "strata://notes/runbook.md",
    ],
    "from": ["1", "0", "garbage", "99999999999"],
    "next": ["/ui/reports", "//evil.example/", "garbage"],
    **{k: ["1", "garbage", "-1"] for k in REPORT},
    "skip": ["a.md: too big", ""],
    "question": ["what is the on-call rota?", "", "x" * 20_000],
}
"""Values of every query parameter the console reads: the one a page declares, the search
form's fields and a re-scan's counts, each with its edges (the first and last days of the
calendar, garbage)."""
PATH_SAMPLES: dict[str, list[str]] = {
    "entry_id": ["standup-1", "db-decision", "no-such-entry"],
    "name": ["notes", "expire_c_tier", "missing"],
    "rest": ["nowhere", "a/b/c"],
    "file_path": ["console.css", "missing.css"],
    "reference_id": ["r1", "missing"],
}
"""Values of the path parameters: a collection's or a job's name share ``name``."""
ROOT = "/ui"
UNLIMITED = {"agent": 0, "admin": 0}


def query_params() -> list[str]:
    """The names of the query parameters the console reads."""
    form = [f.name for f in dataclasses.fields(SearchForm) if f.name != "errors"]
    return [*SAMPLES, *form]


def declared_query_params(app: Litestar) -> set[str]:
    """The query parameters console handlers declare."""
    names: set[str] = set()
    for route in console_routes(app):
        for handler in route.route_handlers:
            for name, parameter in handler.parsed_fn_signature.parameters.items():
                given = parameter.kwarg_definition
                if isinstance(given, QueryParameter):
                    names.add(given.name or name)
    return names


def console_routes(app: Litestar) -> list[HTTPRoute]:
    return [r for r in app.routes if isinstance(r, HTTPRoute) and r.path.startswith(ROOT)]


def filled(path: str, route: HTTPRoute) -> list[str]:
    """``path`` with each of its parameters' samples in turn."""
    names = list(route.path_parameters)
    for name in names:
        assert name in PATH_SAMPLES, f"{path}: give the walk samples of {name!r}"
    choices = [PATH_SAMPLES[n] for n in names]
    paths = []
    for values in itertools.product(*choices):
        concrete = path
        for name, value in zip(names, values, strict=True):
            definition = route.path_parameters[name]
            concrete = concrete.replace("{" + definition.full + "}", value)
        paths.append(concrete)
    return paths


def variants() -> list[dict[str, str]]:
    """No parameter at all, then every parameter at its first sample, at its second, ..."""
    longest = max(len(v) for v in SAMPLES.values())
    each = [
        {name: values[n % len(values)] for name, values in SAMPLES.items()} for n in range(longest)
    ]
    for sent in each:
        sent["tier"] = sent.pop("tiers")
    return [{}, *each]


class Browser:
    """A browser on the running app, with cookies of its own; it follows no redirect."""

    def __init__(self, running: TestClient[Litestar], name: str, key: str | None) -> None:
        transport: Any = transports.TestClientTransport(client=running)
        self.client = httpx.Client(base_url=LOCAL, transport=transport, follow_redirects=False)
        self.name = name
        self.key = key

    def sign_in(self) -> None:
        if self.key is not None:
            self.client.follow_redirects = True
            assert sign_in(self.client, self.key).status_code == 200
            self.client.follow_redirects = False

    def token(self) -> str:
        page = self.client.get("/ui/sign-in" if self.key is None else "/ui/namespaces")
        if page.status_code == 303:  # signed in (or open): the sign-in page sends home
            page = self.client.get("/ui/namespaces")
        return token(page) if 'name="csrf"' in page.text else ""


def walk(
    app: Litestar, browsers: list[Browser], phase: str, settle: Callable[[], None]
) -> list[str]:
    """Every console route, every method but OPTIONS, with every variant of the query:
    the answers of 500 and above, as ``viewer phase METHOD url status``. ``settle`` waits
    for what a viewer's forms started in the background."""
    failures: list[str] = []
    routes = console_routes(app)
    for browser in browsers:
        csrf = browser.token()
        posts: list[tuple[str, str]] = []
        for route in routes:
            for path in filled(route.path, route):
                for method in sorted(route.methods - {"OPTIONS"}):
                    if method == "POST":
                        posts.append((path, method))
                        continue
                    for sent in variants():
                        answer = browser.client.request(method, path, params=sent)
                        if answer.status_code >= 500:
                            failures.append(
                                f"{browser.name} {phase} {method} {answer.url} {answer.status_code}"
                            )
        # Forms last, signing out at the very end: each acts on what the pages showed.
        posts.sort(key=lambda p: p[0] == "/ui/sign-out")
        for path, verb in posts:
            form = {"csrf": csrf, "key": browser.key or "", "next": "/ui/"}
            answer = browser.client.request(verb, path, data=form)
            if answer.status_code >= 500:
                failures.append(f"{browser.name} {phase} {verb} {path} {answer.status_code}")
        settle()
        browser.sign_in()  # again, after signing out
    return failures


@contextmanager
def console(
    tmp_path: Path, open_stores: OpenStores, **settings: Any
) -> Iterator[tuple[TestClient[Litestar], Runtime]]:
    """The app on real stores in ``tmp_path``, holding entries, a revised decision, a
    collection of notes and questions asked through the API."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text)
    chosen = Settings().replace(
        data_dir=tmp_path / "data",
        collection_roots=str(tmp_path),
        ui_secret=SECRET,
        requests_per_second=UNLIMITED,  # the clock stands still: no allowance refills
        **settings,
    )
    runtime = open_stores(chosen)
    headers = AS_ADMIN if chosen.server.has_keys else {}
    with TestClient(create_app(services=runtime.services), base_url=LOCAL) as running:
        for batch in (EVENTS, [REVISION]):
            events = [{**e, "namespace": "one"} for e in batch]
            written = running.post("/v1/events", json={"events": events}, headers=headers)
            assert written.status_code == 201, written.text
        collection = {"name": "notes", "path": str(notes), "namespace": "one"}
        added = running.post("/v1/collections", json=collection, headers=headers)
        assert added.status_code == 201, added.text
        for question in ("which database for billing?", "who runs the kafka on-call rota?"):
            asked = {"question": question, "namespace": "one"}
            assert running.post("/v1/retrieve", json=asked, headers=headers).status_code == 200
        yield running, runtime


def run_every_job(runtime: Runtime) -> None:
    """Each scheduled job once, through the scheduler, as its schedule would."""
    for job in runtime.scheduler.records():
        runtime.scheduler.run(job.name)


@pytest.mark.parametrize("keys", [KEYS, ""], ids=["keyed", "open"])
def test_every_console_page_answers_without_a_server_error(
    tmp_path: Path, open_stores: OpenStores, keys: str
) -> None:
    with console(tmp_path, open_stores, api_keys=keys) as (running, runtime):
        app = running.app
        assert declared_query_params(app) <= set(query_params()), "give the walk samples"
        if keys:
            browsers = [
                Browser(running, "visitor", None),
                Browser(running, "admin", ADMIN),
                Browser(running, "agent", AGENT_ONE),
            ]
        else:
            browsers = [Browser(running, "open", None)]
        for browser in browsers:
            browser.sign_in()
        settle = runtime.rebuilder.wait
        failures = walk(app, browsers, "before the jobs", settle)
        run_every_job(runtime)
        failures += walk(app, browsers, "after the jobs", settle)
    assert not failures, "\n".join(failures)


def questions_asked(running: TestClient[Litestar], headers: dict[str, str]) -> int:
    report = running.get("/v1/reports/daily?namespace=one", headers=headers)
    assert report.status_code == 200, report.text
    asked: int = report.json()["questions"]
    return asked


def test_the_service_page_shows_when_each_job_last_succeeded(
    tmp_path: Path, open_stores: OpenStores
) -> None:
    with console(tmp_path, open_stores, api_keys=KEYS) as (running, runtime):
        run_every_job(runtime)
        page = running.get("/ui/service", headers=AS_ADMIN)
        assert page.status_code == 200, page.text
        assert '<a href="/ui/jobs#job-expire_c_tier">expire_c_tier</a>' in page.text
        assert re.search(r"<td>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</td></tr>", page.text)


def test_reports_at_the_first_and_last_days_answer_as_the_api_does(
    tmp_path: Path, open_stores: OpenStores
) -> None:
    with console(tmp_path, open_stores, api_keys=KEYS) as (running, _):
        for day, gone in (("9999-12-31", 'rel="next"'), ("0001-01-01", 'rel="prev"')):
            api = running.get(f"/v1/reports/daily?date={day}", headers=AS_ADMIN)
            page = running.get(f"/ui/reports?date={day}", headers=AS_ADMIN)
            assert (api.status_code, page.status_code) == (200, 200), page.text
            assert f'value="{day}"' in page.text and gone not in page.text
        first = running.get("/ui/reports?date=0001-01-01", headers=AS_ADMIN)
        assert "Last 1 day</h2>" in first.text
        garbage = running.get("/ui/reports?date=garbage", headers=AS_ADMIN)
        assert garbage.status_code == 422, garbage.text


def test_a_search_page_showing_what_retrieve_answers_records_no_question(
    tmp_path: Path, open_stores: OpenStores
) -> None:
    """Open mode: any page the browser opens could load the console's address; loading it
    must not plant a question in the daily report."""
    with console(tmp_path, open_stores) as (running, _):
        before = questions_asked(running, {})
        planted = "which database did we pick for billing, asked by an image?"
        page = running.get("/ui/", params={"q": planted, "namespace": "one", "retrieve": "on"})
        assert page.status_code == 200
        assert "What retrieve answers" in page.text and "nothing is logged" in page.text
        assert re.search(r"the threshold \d\.\d\d", page.text)
        assert questions_asked(running, {}) == before
        report = running.get("/ui/reports?namespace=one")
        assert planted not in report.text and "who runs the kafka" in report.text


def test_a_copy_of_a_session_cookie_is_refused_once_signed_out(
    tmp_path: Path, open_stores: OpenStores
) -> None:
    with console(tmp_path, open_stores, api_keys=KEYS) as (running, runtime):
        browser = Browser(running, "admin", ADMIN)
        browser.sign_in()
        copied = browser.client.cookies[COOKIE]
        page = browser.client.get("/ui/namespaces")
        assert page.status_code == 200
        signed_out = browser.client.post("/ui/sign-out", data={"csrf": token(page)})
        assert (signed_out.status_code, signed_out.headers["location"]) == (303, "/ui/sign-in")

        thief = Browser(running, "thief", None)
        thief.client.cookies.set(COOKIE, copied, path="/ui")
        replayed = thief.client.get("/ui/namespaces")
        assert replayed.status_code == 303
        assert replayed.headers["location"].startswith("/ui/sign-in")
        form = thief.client.post("/ui/jobs/optimize_indexes/run", data={"csrf": token(page)})
        assert form.status_code == 303
        assert runtime.scheduler.history("optimize_indexes", 1) == []

        browser.sign_in()  # signing in again starts a new session, which works
        assert browser.client.get("/ui/namespaces").status_code == 200
