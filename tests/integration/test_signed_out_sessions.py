"""Console sessions signed out of, in the database the replicas share: what one process
records, another one reads, on SQLite files and on Postgres alike."""

from __future__ import annotations

from pathlib import Path

from service.stores.durable import DurableStores, open_postgres, open_sqlite
from tests.fakes import T0

DAY = 86_400


def check_shared(one: DurableStores, other: DurableStores) -> None:
    assert not other.signed_out.signed_out("s1")
    one.signed_out.sign_out("s1", until=T0 + DAY, now=T0)
    one.signed_out.sign_out("s1", until=T0 + DAY, now=T0)  # twice is once
    assert other.signed_out.signed_out("s1") and not other.signed_out.signed_out("s2")
    # A record goes once its session would have expired anyway.
    other.signed_out.sign_out("s2", until=T0 + 3 * DAY, now=T0 + 2 * DAY)
    assert not one.signed_out.signed_out("s1") and one.signed_out.signed_out("s2")


def test_a_session_signed_out_of_in_one_process_is_refused_by_another_on_sqlite(
    tmp_path: Path,
) -> None:
    one, other = open_sqlite(tmp_path), open_sqlite(tmp_path)
    try:
        check_shared(one, other)
    finally:
        other.close()
        one.close()


def test_a_session_signed_out_of_on_one_replica_is_refused_by_another_on_postgres(
    postgres_url: str,
) -> None:
    one, other = open_postgres(postgres_url), open_postgres(postgres_url)
    try:
        check_shared(one, other)
    finally:
        other.close()
        one.close()
