"""A PostgreSQL database for the tests: ``STRATA_TEST_DATABASE_URL`` when set (a database
the tests may empty at will), else a throw-away server started for the run.

The throw-away server is a new cluster in a temporary folder (``initdb``, with fsync off
and trust authentication), listening on a free loopback port, stopped and deleted when the
run ends. Run as root, its files belong to the ``postgres`` user and its programs run as
that user. Tests share one database, migrated once and emptied before each test."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from service.stores.migrations import migrate_postgres

URL_VARIABLE = "STRATA_TEST_DATABASE_URL"
DATABASE = "strata_test"

MISSING = (
    "PostgreSQL is needed by the tests marked `postgres` and none was found: install the "
    "server (initdb and pg_ctl, e.g. apt-get install postgresql) or set "
    f"{URL_VARIABLE} to a database the tests may empty."
)

POSTGRES = pytest.param("postgres", marks=pytest.mark.postgres)
"""The Postgres case of a fixture parametrised over implementations."""


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: Debian's newest, else the PATH's."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).resolve().parent))
    for folder in map(Path, candidates):
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _version(folder: str) -> int:
    name = Path(folder).parent.name
    return int(name) if name.isdigit() else 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TemporaryServer:
    """A PostgreSQL cluster of its own, in a temporary folder, on a loopback port."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.root = Path(tempfile.mkdtemp(prefix="strata-postgres-"))
        self.data = self.root / "data"
        self.as_root = os.geteuid() == 0
        if self.as_root:  # initdb refuses to run as root
            shutil.chown(self.root, "postgres", "postgres")
        self.root.chmod(0o700)
        self.port = 0

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.binaries / program), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} failed: {done.stdout}{done.stderr}{tail}")

    def start(self) -> str:
        """Create and start the cluster; returns the URL of its ``postgres`` database."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "-E", "UTF8", "--no-locale", "--no-sync")  # fmt: skip
        for attempt in range(3):
            self.port = free_port()
            options = (
                f"-k {self.root} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off"
            )
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                          "-w", "-t", "60", "-o", options, "start")  # fmt: skip
                break
            except RuntimeError:
                if attempt == 2:  # else the port was taken meanwhile: another one
                    raise
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            if self.port:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


class TestDatabase:
    """The database the tests share: migrated once, emptied before each test."""

    def __init__(self, url: str) -> None:
        self.url = url
        with psycopg.connect(url, autocommit=True) as conn:
            migrate_postgres(conn)
            rows = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename <> 'schema_version'"
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
    """A new database beside ``admin_url``'s; returns its URL."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {DATABASE}".encode())
    return admin_url.rsplit("/", 1)[0] + f"/{DATABASE}"
