"""The coordination's contract: FakeCoordination, LocalCoordination (one process) and
PostgresCoordination (replicas sharing a database), and what only the latter adds:
leadership held by one replica at a time, lost with its connection."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest

from service.domain.ports import Coordination
from service.stores.coordination import LocalCoordination, PostgresCoordination
from tests.fakes import FakeCoordination
from tests.postgres import POSTGRES

OpenCoordination = Callable[[], Coordination]


def eventually(check: Callable[[], bool], within: float = 10.0) -> bool:
    """Whether ``check`` comes true within ``within`` seconds, asked every 50 ms."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(params=["fake", "local", POSTGRES])
def open_coordination(request: pytest.FixtureRequest) -> Iterator[OpenCoordination]:
    """Opens the coordination of another process sharing the test's storage each call;
    ``fake`` and ``local`` are one process, so the same one each time."""
    opened: list[Coordination] = []
    one: Coordination = FakeCoordination() if request.param == "fake" else LocalCoordination()

    def open_one() -> Coordination:
        if request.param != "postgres":
            return one
        coordination = PostgresCoordination(request.getfixturevalue("postgres_url"))
        opened.append(coordination)
        return coordination

    yield open_one
    for coordination in opened:
        coordination.close()


Two = tuple[Coordination, Coordination]


@pytest.fixture
def two(open_coordination: OpenCoordination) -> Two:
    """The coordination of two processes sharing the test's storage."""
    return open_coordination(), open_coordination()


def test_a_job_lock_is_held_once_until_its_block_ends(two: Two) -> None:
    first, second = two
    with first.job_lock("expire") as held:
        assert held
        with second.job_lock("expire") as again:
            assert not again
        with second.job_lock("archive") as other:
            assert other
    with second.job_lock("expire") as after:
        assert after


def test_a_job_lock_is_released_when_its_block_raises(two: Two) -> None:
    first, second = two
    with pytest.raises(RuntimeError), first.job_lock("expire") as held:
        assert held
        raise RuntimeError("the job failed")
    with second.job_lock("expire") as after:
        assert after


def test_a_job_lock_excludes_a_run_in_another_thread(two: Two) -> None:
    first, second = two
    seen: list[bool] = []

    def other_run() -> None:
        with second.job_lock("expire") as held:
            seen.append(held)

    with first.job_lock("expire"):
        thread = threading.Thread(target=other_run)
        thread.start()
        thread.join()
    assert seen == [False]


def test_one_process_leads(open_coordination: OpenCoordination) -> None:
    assert open_coordination().lead()


@pytest.fixture
def replicas(postgres_url: str) -> Iterator[Callable[[], PostgresCoordination]]:
    opened: list[PostgresCoordination] = []

    def open_one() -> PostgresCoordination:
        opened.append(PostgresCoordination(postgres_url))
        return opened[-1]

    yield open_one
    for coordination in opened:
        coordination.close()


def test_one_replica_leads_at_a_time(replicas: Callable[[], PostgresCoordination]) -> None:
    first, second = replicas(), replicas()
    assert first.lead()
    assert not second.lead()
    assert first.lead() and not second.lead()  # asking again changes nothing
    first.close()
    assert second.lead()
    assert not first.lead()  # a closed coordination tries again, and finds a leader


def test_the_leadership_ends_with_the_leaders_connection(
    replicas: Callable[[], PostgresCoordination], postgres_url: str
) -> None:
    first, second = replicas(), replicas()
    assert first.lead()
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
            "WHERE application_name = 'strata leader' AND pid IN "
            "(SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)"
        ).fetchall()
    assert ended == [(True,)]
    assert eventually(second.lead)  # the server frees the lock once the backend has exited
    assert not first.lead()  # finds its connection gone: no longer leads
    assert not first.lead()  # and tries again in vain while the other leads
    second.close()
    assert first.lead()
