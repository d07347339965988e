"""HttpUpstream against a scripted server on loopback: what each failure becomes (retryable
or not), the time bound held even against an answer trickled a byte at a time, and a
service speaking only the documented subset of the search contract."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from service.domain.recall import UpstreamError
from service.remote.upstream import HttpUpstream
from service.testing.engines import free_port
from service.testing.scripted_upstream import ScriptedUpstream

SUBSET = [{"id": "kb-7", "text": "Invoices are archived after 7 years.", "score": 0.8}]


@pytest.fixture
def scripted() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream(SUBSET)
    yield server
    server.close()


def client(url: str, key: str = "") -> HttpUpstream:
    return HttpUpstream(url, name="kb", api_key=key, clock=lambda: 1_800_000_000.0)


def test_the_documented_subset_is_enough(scripted: ScriptedUpstream) -> None:
    upstream = client(scripted.url, key="k3y-for-the-upstream")
    (hit,) = upstream.search("team", "how long are invoices kept?", 5, 2.0)
    assert (hit.entry.id, hit.entry.namespace, hit.entry.tier) == ("kb-7", "team", "A")
    assert hit.snippet == hit.entry.text and hit.score == 0.8
    assert hit.entry.timestamp == 1_800_000_000.0
    assert scripted.requests == [
        {"query": "how long are invoices kept?", "namespace": "team", "limit": 5}
    ]
    # Marked as a recall, so an upstream with an upstream of its own does not ask it in turn.
    (headers,) = scripted.headers
    assert headers["x-strata-recall"] == "1"
    assert headers["authorization"] == "Bearer k3y-for-the-upstream"


@pytest.mark.parametrize(("status", "retryable"), [(503, True), (429, True), (401, False)])
def test_an_error_status_is_a_failure(
    scripted: ScriptedUpstream, status: int, retryable: bool
) -> None:
    scripted.behaviour, scripted.status = "fail", status
    with pytest.raises(UpstreamError) as failed:
        client(scripted.url).search("team", "invoices", 5, 2.0)
    assert failed.value.retryable is retryable
    assert str(status) in str(failed.value)


def test_a_refused_connection_is_a_retryable_failure() -> None:
    with pytest.raises(UpstreamError, match="unreachable") as failed:
        client(f"http://127.0.0.1:{free_port()}").search("team", "invoices", 5, 2.0)
    assert failed.value.retryable


@pytest.mark.no_cover  # timed: coverage's tracing slows the client and server it times
@pytest.mark.parametrize("behaviour", ["slow", "trickle"])
def test_an_answer_later_than_the_timeout_is_a_retryable_failure_at_the_timeout(
    scripted: ScriptedUpstream, behaviour: str
) -> None:
    scripted.behaviour = behaviour  # type: ignore[assignment]
    scripted.delay = 0.5 if behaviour == "slow" else 0.05
    started = time.monotonic()
    with pytest.raises(UpstreamError, match="no answer within") as failed:
        client(scripted.url).search("team", "invoices", 5, 0.2)
    assert failed.value.retryable
    assert time.monotonic() - started < 0.45, "gave up at the timeout, not at the answer"


def test_an_unreadable_answer_is_not_retried(scripted: ScriptedUpstream) -> None:
    scripted.results = [{"text": "no id, no score"}]
    with pytest.raises(UpstreamError, match="unreadable") as failed:
        client(scripted.url).search("team", "invoices", 5, 2.0)
    assert not failed.value.retryable
