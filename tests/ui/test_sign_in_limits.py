"""Failed console sign-ins are counted per key tried and per client address (new wrong
keys), with keys sent to the API: past a limit the form comes back with 429 and
Retry-After, saying nothing of the key; other addresses, and keys signed in with there
before, sign in as before. Signed-in pages count against the key's requests as API calls
do."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.api.conftest import fake_runtime
from tests.apps import serving
from tests.fakes import FakeClock, FakeFiles
from tests.http import ADMIN, AGENT_ONE, AS_ADMIN, KEYS, at_address
from tests.ui.conftest import SECRET, token

WRONG = "not-a-key-of-this-service"

Browser = Callable[[str], httpx.Client]


@pytest.fixture
def browser(clock: FakeClock, files: FakeFiles) -> Iterator[Browser]:
    """Opens browsers at a client address, on a console allowing 3 failed sign-ins a
    minute and 3 requests a second of an agent key."""
    runtime = fake_runtime(
        clock,
        files,
        api_keys=KEYS,
        ui_secret=SECRET,
        sign_in_failures_per_minute="3",
        requests_per_second='{"agent": 3}',
    )
    with serving(runtime) as running:
        yield lambda address: at_address(running, address, follow_redirects=True)


def try_key(client: httpx.Client, key: str) -> httpx.Response:
    form = client.get("/ui/sign-in")
    assert form.status_code == 200, form.text
    return client.post("/ui/sign-in", data={"key": key, "csrf": token(form), "next": "/ui/"})


def signed_in(client: httpx.Client) -> bool:
    return client.get("/ui/", follow_redirects=False).status_code == 200


def wrong(n: int) -> str:
    return f"{WRONG}-{n:04}"


def test_past_the_failures_of_its_address_even_the_right_key_waits(
    browser: Browser, clock: FakeClock
) -> None:
    guesser = browser("203.0.113.9")
    for n in range(3):
        assert try_key(guesser, wrong(n)).status_code == 401
    held = try_key(guesser, ADMIN)
    assert held.status_code == 429
    assert held.headers["retry-after"] == "20"
    assert "Too many failed sign-ins" in held.text and "203.0.113.9" in held.text
    assert 'name="key"' in held.text, "the form comes back, to try again later"
    assert not signed_in(guesser)
    neighbour = browser("198.51.100.4")
    assert try_key(neighbour, ADMIN).status_code == 200 and signed_in(neighbour)
    clock.advance(20)
    assert try_key(guesser, ADMIN).status_code == 200 and signed_in(guesser)


def test_a_key_signed_in_with_before_is_not_held_by_its_address_s_failures(
    browser: Browser,
) -> None:
    person, guesser = browser("203.0.113.9"), browser("203.0.113.9")
    assert try_key(person, ADMIN).status_code == 200
    for n in range(5):
        assert try_key(guesser, wrong(n)).status_code == (401 if n < 3 else 429)
    again = browser("203.0.113.9")  # a new browser, the same address and key
    assert try_key(again, ADMIN).status_code == 200 and signed_in(again)
    assert try_key(again, AGENT_ONE).status_code == 429, "never signed in with from here"


def test_a_stale_key_tried_again_and_again_holds_back_no_other_key(browser: Browser) -> None:
    script = browser("127.0.0.1")
    for _ in range(3):
        assert try_key(script, WRONG).status_code == 401
    held = try_key(script, WRONG)
    assert held.status_code == 429 and "with this key" in held.text
    assert try_key(browser("127.0.0.1"), AGENT_ONE).status_code == 200


def test_a_key_tried_too_often_is_refused_from_any_address(browser: Browser) -> None:
    for n in range(3):
        assert try_key(browser(f"203.0.113.{n}"), WRONG).status_code == 401
    elsewhere = browser("198.51.100.4")
    held = try_key(elsewhere, WRONG)
    assert held.status_code == 429 and "with this key" in held.text
    assert WRONG not in held.text
    assert try_key(elsewhere, AGENT_ONE).status_code == 200, "the address has not failed"


def test_signing_in_right_never_counts_as_a_failure(browser: Browser) -> None:
    person = browser("198.51.100.4")
    for _ in range(6):
        assert try_key(person, ADMIN).status_code == 200


def test_a_bearer_key_sent_to_the_console_counts_as_a_sign_in(browser: Browser) -> None:
    script = browser("203.0.113.9")
    for n in range(3):
        guess = {"Authorization": f"Bearer {wrong(n)}"}
        assert script.get("/ui/", headers=guess).status_code == 401
    held = script.get("/ui/jobs", headers=AS_ADMIN)
    assert held.status_code == 429 and held.headers["retry-after"] == "20"
    assert "failed authentications per minute from client 203.0.113.9: 3" in held.text
    assert try_key(browser("203.0.113.9"), AGENT_ONE).status_code == 429, "the form's too"


def test_pages_of_a_signed_in_key_count_against_its_requests(
    browser: Browser, clock: FakeClock
) -> None:
    agent = browser("198.51.100.4")
    assert try_key(agent, AGENT_ONE).status_code == 200  # lands on the search page: one
    assert agent.get("/ui/namespaces").status_code == 200
    assert agent.get("/ui/").status_code == 200
    held = agent.get("/ui/namespaces")
    assert held.status_code == 429 and held.headers["retry-after"] == "1"
    assert "requests per second of key" in held.text and "role agent: 3" in held.text
    clock.advance(1)
    assert agent.get("/ui/namespaces").status_code == 200
