"""Signing in to the console with an API key, the session cookie, and signing out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from http.cookies import SimpleCookie

import httpx
import pytest

from service.application.auth import OPEN
from service.bootstrap import Runtime
from service.ui.session import COOKIE
from tests.api.conftest import fake_runtime
from tests.apps import serving
from tests.fakes import FakeClock, FakeFiles
from tests.http import ADMIN, AGENT_ONE, AS_ADMIN, AS_AGENT, LOCAL
from tests.ui.conftest import SECRET, Client, sign_in, token


def set_cookie(response: httpx.Response) -> SimpleCookie:
    """The cookies a response sets, with their attributes."""
    jar: SimpleCookie = SimpleCookie()
    for value in response.headers.get_list("set-cookie"):
        jar.load(value)
    return jar


def test_a_page_sends_a_caller_who_has_not_signed_in_to_the_sign_in_page(
    console: Callable[[], Client],
) -> None:
    client = console()
    answer = client.get("/ui/reports?namespace=one", follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/ui/sign-in?next=%2Fui%2Freports%3Fnamespace%3Done"
    form = client.get(answer.headers["location"])
    assert form.status_code == 200
    assert 'name="next" value="/ui/reports?namespace=one"' in form.text
    assert 'type="password"' in form.text


def test_signing_in_keeps_a_signed_http_only_cookie_without_the_key(
    console: Callable[[], Client],
) -> None:
    client = console()
    form = client.get("/ui/sign-in")
    sent = {"key": ADMIN, "csrf": token(form), "next": "/ui/namespaces"}
    answer = client.post("/ui/sign-in", data=sent, follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/ui/namespaces")
    cookie = set_cookie(answer)[COOKIE]
    assert cookie["httponly"] and cookie["samesite"].lower() == "strict" and cookie["path"] == "/ui"
    assert not cookie["secure"], "plain http: a Secure cookie would never come back"
    assert ADMIN not in cookie.value
    page = client.get("/ui/namespaces")
    assert page.status_code == 200 and "admin" in page.text


def test_a_wrong_key_gets_the_form_again_and_no_session(console: Callable[[], Client]) -> None:
    client = console()
    form = client.get("/ui/sign-in")
    answer = client.post("/ui/sign-in", data={"key": "not-a-key-at-all-000", "csrf": token(form)})
    assert answer.status_code == 401
    assert "no such API key" in answer.text
    assert client.get("/ui/", follow_redirects=False).status_code == 303


@pytest.mark.parametrize(
    "elsewhere", ["https://evil.example/", "//evil.example/ui/", "/v1/stats", "/ui//evil.example"]
)
def test_sign_in_never_sends_the_browser_out_of_the_console(
    console: Callable[[], Client], elsewhere: str
) -> None:
    client = console()
    form = client.get("/ui/sign-in")
    sent = {"key": ADMIN, "csrf": token(form), "next": elsewhere}
    answer = client.post("/ui/sign-in", data=sent, follow_redirects=False)
    assert answer.headers["location"] == "/ui/"


def test_signing_out_ends_the_session(admin: Client) -> None:
    page = admin.get("/ui/")
    answer = admin.post("/ui/sign-out", data={"csrf": token(page)}, follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/ui/sign-in")
    assert set_cookie(answer)[COOKIE]["max-age"] == "0"
    assert admin.get("/ui/", follow_redirects=False).status_code == 303


def test_a_session_cookie_that_was_tampered_with_is_not_a_session(admin: Client) -> None:
    value = admin.cookies[COOKIE]
    sid, key, issued, signature = value.split(".")
    admin.cookies.clear()
    admin.cookies.set(COOKIE, f"{sid}.{key}.{int(issued) + 3600}.{signature}", path="/ui")
    assert admin.get("/ui/", follow_redirects=False).status_code == 303


def test_a_bearer_key_works_without_a_cookie(console: Callable[[], Client]) -> None:
    client = console()
    page = client.get("/ui/jobs", headers=AS_ADMIN)
    assert page.status_code == 200 and "expire_c_tier" in page.text
    assert COOKIE not in client.cookies
    assert client.get("/ui/jobs", headers=AS_AGENT).status_code == 403
    refused = client.get("/ui/", headers={"Authorization": "Bearer nope-nope-nope-nope"})
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"


def test_a_bearer_script_posts_forms_without_a_token(
    console: Callable[[], Client], runtime: Runtime
) -> None:
    client = console()
    answer = client.post("/ui/jobs/optimize_indexes/run", headers=AS_ADMIN, follow_redirects=False)
    assert answer.status_code == 303
    runs = {j.name: j.runs for j in runtime.services.admin.list_jobs(OPEN)}
    assert runs["optimize_indexes"] == 1


@pytest.fixture
def over_https(runtime: Runtime) -> Iterator[Client]:
    with serving(runtime, base_url="https://strata.example") as client:
        yield client


def test_over_https_the_cookie_is_secure(over_https: Client) -> None:
    form = over_https.get("/ui/sign-in")
    assert set_cookie(form)[COOKIE]["secure"]
    answer = over_https.post(
        "/ui/sign-in", data={"key": AGENT_ONE, "csrf": token(form)}, follow_redirects=False
    )
    assert set_cookie(answer)[COOKIE]["secure"]


@pytest.fixture
def open_console(clock: FakeClock, files: FakeFiles) -> Iterator[Client]:
    """No keys: every caller on loopback is an admin."""
    runtime = fake_runtime(clock, files, ui_secret=SECRET)
    with serving(runtime) as client:
        yield client


def test_without_keys_the_console_needs_no_sign_in_on_loopback(open_console: Client) -> None:
    page = open_console.get("/ui/jobs")
    assert page.status_code == 200
    assert "Sign out" not in page.text
    assert open_console.get("/ui/sign-in", follow_redirects=False).headers["location"] == "/ui/"


def test_without_keys_a_rebound_host_or_foreign_page_is_refused(open_console: Client) -> None:
    rebound = open_console.get("/ui/", headers={"Host": "evil.example:8080"})
    assert rebound.status_code == 403
    assert rebound.headers["content-security-policy"].startswith("default-src 'self'")
    page = open_console.get("/ui/jobs")
    forged = open_console.post(
        "/ui/jobs/optimize_indexes/run",
        data={"csrf": token(page)},
        headers={"Origin": "http://evil.example"},
    )
    assert forged.status_code == 403
    own = open_console.post(
        "/ui/jobs/optimize_indexes/run",
        data={"csrf": token(page)},
        headers={"Origin": LOCAL},
        follow_redirects=False,
    )
    assert own.status_code == 303


def test_with_a_list_of_origins_the_console_still_posts_to_itself(
    clock: FakeClock, files: FakeFiles
) -> None:
    runtime = fake_runtime(
        clock,
        files,
        api_keys=f"{ADMIN}=admin",
        ui_secret=SECRET,
        allowed_origins="https://a.example",
    )
    with serving(runtime, base_url="https://strata.example") as client:
        sign_in(client, ADMIN)
        page = client.get("/ui/jobs")
        sent = {"csrf": token(page)}
        own = client.post(
            "/ui/jobs/optimize_indexes/run",
            data=sent,
            headers={"Origin": "https://strata.example"},
            follow_redirects=False,
        )
        assert own.status_code == 303
        other = client.post(
            "/ui/jobs/optimize_indexes/run", data=sent, headers={"Origin": "https://b.example"}
        )
        assert other.status_code == 403
