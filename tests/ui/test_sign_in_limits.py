"""Failed console sign-ins are counted per client address and per key tried: past the
limit the form comes back with 429 and Retry-After before the key is checked; other
addresses sign in as before. Signed-in pages count against the key's requests as API
calls do."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.api.conftest import fake_services
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
    services = fake_services(
        clock,
        files,
        api_keys=KEYS,
        ui_secret=SECRET,
        sign_in_failures_per_minute="3",
        requests_per_second='{"agent": 3}',
    )
    with serving(services) as running:
        yield lambda address: at_address(running, address, follow_redirects=True)


def try_key(client: httpx.Client, key: str) -> httpx.Response:
    form = client.get("/ui/sign-in")
    assert form.status_code == 200, form.text
    return client.post("/ui/sign-in", data={"key": key, "csrf": token(form), "next": "/ui/"})


def signed_in(client: httpx.Client) -> bool:
    return client.get("/ui/", follow_redirects=False).status_code == 200


def test_past_the_failures_of_its_address_even_the_right_key_waits(
    browser: Browser, clock: FakeClock
) -> None:
    guesser = browser("203.0.113.9")
    for _ in range(3):
        assert try_key(guesser, WRONG).status_code == 401
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
    for _ in range(3):
        assert script.get("/ui/", headers={"Authorization": f"Bearer {WRONG}"}).status_code == 401
    held = script.get("/ui/jobs", headers=AS_ADMIN)
    assert held.status_code == 429 and held.headers["retry-after"] == "20"
    assert "failed sign-ins per minute from client 203.0.113.9: 3" in held.text


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
