"""Console sessions signed out of, in the database the replicas share: what one process
records, another one reads, on SQLite files and on Postgres alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.stores.durable import DurableStores
from tests.fakes import T0
from tests.postgres import POSTGRES
from tests.stores import OpenDurable, durable_opener

DAY = 86_400


def check_shared(one: DurableStores, other: DurableStores) -> None:
    assert not other.signed_out.signed_out("s1")
    one.signed_out.sign_out("s1", until=T0 + DAY, now=T0)
    one.signed_out.sign_out("s1", until=T0 + DAY, now=T0)  # twice is once
    assert other.signed_out.signed_out("s1") and not other.signed_out.signed_out("s2")
    # A record goes once its session would have expired anyway.
    other.signed_out.sign_out("s2", until=T0 + 3 * DAY, now=T0 + 2 * DAY)
    assert not one.signed_out.signed_out("s1") and one.signed_out.signed_out("s2")


@pytest.fixture(params=["sqlite", POSTGRES])
def open_stores(request: pytest.FixtureRequest, tmp_path: Path) -> OpenDurable:
    return durable_opener(request, tmp_path)


def test_a_session_signed_out_of_in_one_process_is_refused_by_another(
    open_stores: OpenDurable,
) -> None:
    check_shared(open_stores(), open_stores())
