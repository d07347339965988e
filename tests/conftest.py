"""Shared fixtures: the environment of the run, the real model once per session, real
stores per test, a clock the test sets."""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from service.testing.engines import ChromaServer, TemporaryPostgres, find_binaries
from tests.fakes import FakeClock
from tests.postgres import MISSING, URL_VARIABLE, TestDatabase, create_database

if TYPE_CHECKING:
    from service.bootstrap import Runtime
    from service.settings import Settings
    from service.stores.chroma import ChromaVectorStore
    from service.stores.embedder import SentenceTransformerEmbedder

BIN = Path(sys.executable).parent

ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # Servers the tests start export the ONNX model once for the whole run, not once each.
    "STRATA_MODEL_CACHE": str(Path(__file__).resolve().parent.parent / ".pytest_cache" / "models"),
    # Servers the tests start register collections in temporary folders.
    "STRATA_COLLECTION_ROOTS": tempfile.gettempdir(),
}
"""Set for the whole run where the environment does not set them already."""


SLOW_FIXTURES = {"embedder", "chroma_server"}
"""Fixtures that load the real model or start a server."""

POSTGRES_FIXTURES = {"postgres_database", "postgres_url", "fresh_postgres_url", "engines"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` what loads the model or starts servers: the end-to-end tests, and tests
    using ``SLOW_FIXTURES``; and ``postgres`` the tests using ``POSTGRES_FIXTURES`` (those
    reaching one through ``request.getfixturevalue`` are marked where they do)."""
    e2e = Path(__file__).parent / "e2e"
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if item.path.is_relative_to(e2e) or uses & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
        if uses & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session", autouse=True)
def environment() -> Iterator[None]:
    """``ENVIRONMENT`` for the run, restored after it."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in ENVIRONMENT.items():
            if name not in os.environ:
                patch.setenv(name, value)
        yield


@pytest.fixture(scope="module", autouse=True)
def apps_of_the_module() -> Iterator[None]:
    """The apps a module started (tests/apps.py) are stopped when it ends. Looked up, not
    imported: a run that starts no app need not import the web stack."""
    yield
    apps = sys.modules.get("tests.apps")
    if apps is not None:
        apps.stop_apps()


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[TestDatabase]:
    """The run's Postgres database (see tests/postgres.py); fails the tests that need it,
    with what to install, when there is none."""
    url = os.environ.get(URL_VARIABLE)
    server = None
    if not url:
        binaries = find_binaries()
        if binaries is None:
            pytest.fail(MISSING, pytrace=False)
        server = TemporaryPostgres(binaries)
    try:
        if server is not None:
            url = create_database(server.start())
        assert url
        database = TestDatabase(url)
        yield database
        database.drop_schemas()
    finally:
        if server is not None:
            server.stop()


@pytest.fixture
def postgres_url(postgres_database: TestDatabase) -> str:
    """The URL of the run's Postgres database, migrated and emptied for this test."""
    return postgres_database.empty()


@pytest.fixture
def fresh_postgres_url(postgres_database: TestDatabase) -> str:
    """A URL of the run's Postgres server where no table exists yet (a schema of its own)."""
    return postgres_database.new_schema()


@pytest.fixture
def clock() -> FakeClock:
    """A clock at 2027-01-15T08:00:00Z that moves only when the test sets or advances it."""
    return FakeClock()


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """The real all-MiniLM-L6-v2, loaded once."""
    from service.stores.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` server on loopback; yields its URL."""
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(params=["embedded", pytest.param("server", marks=pytest.mark.slow)])
def chroma_url(request: pytest.FixtureRequest) -> str:
    """Empty for the embedded PersistentClient, else the URL of the test Chroma server."""
    if request.param == "embedded":
        return ""
    return str(request.getfixturevalue("chroma_server"))


@pytest.fixture
def chroma_store(tmp_path: Path) -> Callable[[str], ChromaVectorStore]:
    """Opens a Chroma vector store embedded in ``tmp_path`` (for ``""``) or on the server at
    a URL, under a fresh collection prefix, which keeps tests apart on the shared server."""
    from service.stores.chroma import ChromaVectorStore, connect

    def open_at(url: str) -> ChromaVectorStore:
        return ChromaVectorStore(connect(tmp_path, url), prefix=f"t{uuid.uuid4().hex[:12]}")

    return open_at


@pytest.fixture
def open_stores(
    embedder: SentenceTransformerEmbedder, clock: FakeClock
) -> Iterator[Callable[[Settings], Runtime]]:
    """Opens every real store for some settings, with the session's model and the test's
    clock; what it opened is closed when the test ends."""
    from service.lifespan import open_runtime

    opened: list[Runtime] = []

    def open_for(settings: Settings) -> Runtime:
        resources = open_runtime(settings, embedder=embedder, clock=clock)
        opened.append(resources)
        return resources

    yield open_for
    for resources in reversed(opened):
        resources.close()


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[tuple[TemporaryPostgres, ChromaServer]]:
    """A Postgres server and a Chroma server of the test's own, to stop and start at will."""
    binaries = find_binaries()
    if binaries is None:
        pytest.fail("PostgreSQL is needed (initdb, pg_ctl)")
    postgres, chroma = TemporaryPostgres(binaries), ChromaServer(tmp_path / "chroma")
    try:
        postgres.start()
        chroma.start()
        yield postgres, chroma
    finally:
        chroma.stop()
        postgres.stop()
