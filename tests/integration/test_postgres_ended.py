"""A Postgres connection the server ends in the middle of a transaction (a restart, an
administrator) fails the write as ``EngineUnavailable`` — a 503 to retry — whichever way the
rows were being sent: a statement through SQLAlchemy, or ``COPY`` on the driver's own
connection."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import psycopg
import pytest
from sqlalchemy import Connection, select

from service.domain.errors import EngineUnavailable
from service.stores.durable import open_postgres
from service.stores.postgres import PostgresDatabase
from service.stores.tables import entries

pytestmark = pytest.mark.postgres


@pytest.fixture
def database(postgres_url: str) -> Iterator[PostgresDatabase]:
    open_postgres(postgres_url).close()  # the tables, migrated
    db = PostgresDatabase(postgres_url, name="strata ended", timeout=3.0)
    yield db
    db.close()


def end_own_backend(postgres_url: str, conn: Connection) -> None:
    pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])


def a_statement(db: PostgresDatabase, conn: Connection) -> None:
    conn.execute(select(entries.c.key).limit(1)).all()


def a_copy(db: PostgresDatabase, conn: Connection) -> None:
    db.insert_rows(conn, entries, ["key"], [("ns:ended",)])


@pytest.mark.parametrize("send", [a_statement, a_copy], ids=["statement", "copy"])
def test_a_write_whose_connection_the_server_ended_is_unavailable(
    database: PostgresDatabase,
    postgres_url: str,
    send: Callable[[PostgresDatabase, Connection], None],
) -> None:
    with pytest.raises(EngineUnavailable) as raised, database.write() as conn:
        end_own_backend(postgres_url, conn)
        send(database, conn)
    assert raised.value.engine == "ledger"
    with database.read() as conn:  # the pool replaced the connection it lost
        assert conn.exec_driver_sql("SELECT 1").scalar_one() == 1
