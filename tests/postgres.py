"""A PostgreSQL database for the tests: ``STRATA_TEST_DATABASE_URL`` when set (a database
the tests may empty at will), else a throw-away server started for the run.

The throw-away server (``service.testing.engines.TemporaryPostgres``, which benchmarks start
too) is a new cluster in a temporary folder, with fsync off, on a free loopback port, stopped and
deleted when the run ends. Tests share one database, migrated once and emptied before each
test."""

from __future__ import annotations

import os
from urllib.parse import quote

import psycopg
import pytest

from service.stores.durable import open_postgres
from service.testing import engines
from service.testing.engines import TemporaryPostgres as TemporaryServer
from service.testing.engines import find_binaries, free_port

URL_VARIABLE = "STRATA_TEST_DATABASE_URL"
DATABASE = "strata_test"

MISSING = (
    "PostgreSQL is needed by the tests marked `postgres` and none was found: install the "
    "server (initdb and pg_ctl, e.g. apt-get install postgresql) or set "
    f"{URL_VARIABLE} to a database the tests may empty."
)

__all__ = [
    "MISSING",
    "POSTGRES",
    "URL_VARIABLE",
    "TemporaryServer",
    "TestDatabase",
    "create_database",
    "find_binaries",
    "free_port",
]
"""What the tests import from here; the server's start and stop live in
service/testing/engines.py."""

POSTGRES = pytest.param("postgres", marks=pytest.mark.postgres)
"""The Postgres case of a fixture parametrised over implementations."""


class TestDatabase:
    """The database the tests share: migrated once, emptied before each test."""

    def __init__(self, url: str) -> None:
        self.url = url
        open_postgres(url).close()
        with psycopg.connect(url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename <> 'alembic_version'"
            ).fetchall()
        self.tables = ", ".join(f'"{name}"' for (name,) in rows)
        self.schemas: list[str] = []

    def empty(self) -> str:
        """Empty every table (numbering restarted) and return the database's URL."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("SET lock_timeout = '10s'")
            conn.execute(f"TRUNCATE {self.tables} RESTART IDENTITY CASCADE".encode())
        return self.url

    def new_schema(self) -> str:
        """A URL whose tables are made in a new, empty schema (for migrations to start
        from nothing), dropped when the run ends."""
        name = f"fresh_{len(self.schemas) + 1}_{os.getpid()}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}".encode())
        self.schemas.append(name)
        joiner = "&" if "?" in self.url else "?"
        return f"{self.url}{joiner}options={quote(f'-csearch_path={name}')}"

    def drop_schemas(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            for name in self.schemas:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE".encode())


def create_database(admin_url: str) -> str:
    """The tests' database beside ``admin_url``'s; returns its URL."""
    return engines.create_database(admin_url, DATABASE)
