"""What guards the console: CSRF tokens, response headers, and escaping of whatever users
wrote."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.bootstrap import Runtime
from tests.fakes import FakeFiles
from tests.http import ADMIN, AS_ADMIN
from tests.ui.conftest import Client, sign_in, token

HOSTILE = "<script>alert(1)</script>"
ROOT = "/srv/notes"


@pytest.fixture
def files() -> FakeFiles:
    note = f"# Notes {HOSTILE}\n\nline {HOSTILE}\n".encode()
    return FakeFiles({ROOT: {"a.md": note, "x<img src=x onerror=alert(1)>.md": b"# x\n"}})


def write(client: Client, *events: dict[str, object]) -> None:
    answer = client.post("/v1/events", json={"events": list(events)}, headers=AS_ADMIN)
    assert answer.status_code == 201, answer.text


FORMS = [
    "/ui/entries/talk/promote?namespace=one",
    "/ui/entries/talk/delete?namespace=one",
    "/ui/jobs/optimize_indexes/run",
    "/ui/jobs/rebuild",
    "/ui/collections/notes/rescan",
    "/ui/sign-out",
]
"""Every form that changes state."""


@pytest.mark.parametrize("action", FORMS)
@pytest.mark.parametrize("sent", [{}, {"csrf": ""}, {"csrf": "forged-token"}])
def test_a_form_without_its_token_changes_nothing(
    admin: Client, runtime: Runtime, action: str, sent: dict[str, str]
) -> None:
    write(admin, {"id": "talk", "namespace": "one", "tier": "C", "text": "shard by tenant"})
    admin.post(
        "/v1/collections",
        json={"name": "notes", "path": ROOT, "namespace": "one"},
        headers=AS_ADMIN,
    )
    answer = admin.post(action, data=sent)
    assert answer.status_code == 403
    assert "token" in answer.text
    entry = admin.get("/v1/entries/talk?namespace=one", headers=AS_ADMIN).json()
    assert entry["tier"] == "C", "neither promoted nor deleted"
    jobs = {
        j["name"]: j["runs"] for j in admin.get("/v1/admin/jobs", headers=AS_ADMIN).json()["jobs"]
    }
    assert jobs["optimize_indexes"] == 0
    assert runtime.rebuilder.status.state == "idle"
    assert admin.get("/ui/", follow_redirects=False).status_code == 200, "still signed in"


def test_a_token_from_another_session_is_refused(
    console: Callable[[], Client], admin: Client
) -> None:
    other = console()
    sign_in(other, ADMIN)
    theirs = token(other.get("/ui/jobs"))
    assert theirs != token(admin.get("/ui/jobs"))
    assert admin.post("/ui/jobs/optimize_indexes/run", data={"csrf": theirs}).status_code == 403


def test_sign_in_itself_needs_the_token_of_the_page(console: Callable[[], Client]) -> None:
    client = console()
    client.get("/ui/sign-in")
    refused = client.post("/ui/sign-in", data={"key": ADMIN})
    assert refused.status_code == 403
    assert client.get("/ui/", follow_redirects=False).status_code == 303, "not signed in"


@pytest.mark.parametrize(
    "path",
    [
        "/ui/",
        "/ui/sign-in",
        "/ui/jobs",
        "/ui/no/such/page",
        "/ui/entries/missing?namespace=one",
        "/ui/static/console.css",
        "/ui/static/console.js",
    ],
)
def test_every_console_response_carries_the_security_headers(admin: Client, path: str) -> None:
    answer = admin.get(path)
    csp = answer.headers["content-security-policy"]
    for rule in ("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"):
        assert rule in csp
    assert "form-action 'self'" in csp and "unsafe-inline" not in csp
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "same-origin"


def test_pages_are_not_cached_and_static_files_are_served_as_what_they_are(admin: Client) -> None:
    assert admin.get("/ui/").headers["cache-control"] == "no-store"
    script = admin.get("/ui/static/console.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert admin.get("/ui/static/../templates/base.html").status_code == 404


def test_the_pages_hold_no_inline_script_or_style(admin: Client) -> None:
    html = admin.get("/ui/").text
    assert "<script>" not in html and "<style" not in html and " style=" not in html
    assert " on" not in html.replace("<option", "").split("<body", 1)[1].split(">", 1)[0]


def test_hostile_text_is_shown_as_text_everywhere(admin: Client) -> None:
    write(
        admin,
        {
            "id": "evil",
            "namespace": "one",
            "tier": "C",
            "text": f"deploy notes {HOSTILE} deploy",
            "speaker": f"{HOSTILE}",
            "tags": [HOSTILE],
            "metadata": {HOSTILE: HOSTILE},
        },
    )
    admin.post(
        "/v1/collections",
        json={"name": "notes", "path": ROOT, "namespace": "one"},
        headers=AS_ADMIN,
    )
    admin.post(
        "/v1/retrieve", json={"question": f"why {HOSTILE}?", "namespace": "empty"}, headers=AS_ADMIN
    )
    pages = [
        admin.get("/ui/", params={"q": f"deploy {HOSTILE}", "namespace": "one", "retrieve": "on"}),
        admin.get("/ui/", params={"q": HOSTILE, "speaker": HOSTILE}),
        admin.get("/ui/entries/evil", params={"namespace": "one"}),
        admin.get("/ui/entries/evil/delete", params={"namespace": "one"}),
        admin.get("/ui/reports", params={"namespace": "empty"}),
        admin.get("/ui/documents", params={"path": "notes/a.md"}),
    ]
    for page in pages:
        assert page.status_code == 200, page.url
        assert "<script>alert" not in page.text, page.url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text, page.url
    listing = admin.get("/ui/collections/notes").text
    assert "<img" not in listing and "x&lt;img src=x onerror=alert(1)&gt;.md" in listing
