"""Connections to the Postgres database a cluster shares, and the advisory locks it uses."""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg
from psycopg.rows import DictRow, dict_row
from psycopg_pool import ConnectionPool

Pool = ConnectionPool[psycopg.Connection[DictRow]]
"""Connections in autocommit mode, rows read as dicts: a write opens its own transaction
(``with conn.transaction():``), a read of one statement needs none."""

CONNECT_TIMEOUT = 10
"""Seconds to wait for the server when connecting."""

KEEPALIVES: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5}
"""TCP keepalives, so a connection to a server gone away is seen to fail within a minute
(it matters most to the connections that hold the leadership and the job locks)."""


def lock_key(name: str) -> int:
    """The advisory lock key (a signed 64-bit integer) of a name, the same in every process."""
    digest = hashlib.blake2b(f"strata:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


CHANGES_LOCK = lock_key("changes")
"""Held (for its transaction) by every writer from appending changes to committing: change
sequence numbers are committed in order, so a reader never skips one committed late."""


def connect(url: str, **options: Any) -> psycopg.Connection[DictRow]:
    """One connection of its own, in autocommit mode."""
    return psycopg.connect(
        url,
        autocommit=True,
        row_factory=dict_row,
        connect_timeout=CONNECT_TIMEOUT,
        **KEEPALIVES,
        **options,
    )


def open_pool(url: str, *, min_size: int = 1, max_size: int = 8) -> Pool:
    """A pool of connections to ``url``, waited for until its first connection is made
    (a bad URL or a server away fails here, not on the first request)."""
    pool: Pool = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={
            "autocommit": True,
            "row_factory": dict_row,
            "connect_timeout": CONNECT_TIMEOUT,
            **KEEPALIVES,
        },
        open=False,
        name="strata",
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT)
    except BaseException:
        pool.close()
        raise
    return pool
