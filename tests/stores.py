"""The durable stores the contract tests run their fakes' contracts on: SQLite files in the
test's folder, or the run's Postgres database."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.stores.durable import DurableStores, open_postgres, open_sqlite

OpenDurable = Callable[[], DurableStores]


def durable_opener(
    request: pytest.FixtureRequest, tmp_path: Path, *, clock: Callable[[], float] = time.time
) -> OpenDurable:
    """Opens the stores ``request.param`` names ("sqlite" or "postgres") on the test's
    storage, another view of the same data each call (as another replica has), timing ledger
    changes with ``clock``; each is closed when the fixture asking ends, the last first."""

    def open_one() -> DurableStores:
        if request.param == "sqlite":
            stores = open_sqlite(tmp_path, clock=clock)
        else:
            stores = open_postgres(request.getfixturevalue("postgres_url"), clock=clock)
        request.addfinalizer(stores.close)
        return stores

    return open_one
