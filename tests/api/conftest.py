"""The web app over the use cases on fakes: the REST contract without a model, each app built
and started once per module for its settings (tests/apps.py)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.application import Stores
from service.bootstrap import Runtime, build_runtime
from service.settings import Settings
from tests.apps import serving
from tests.fakes import (
    FakeCatalog,
    FakeClock,
    FakeCoordination,
    FakeEmbedder,
    FakeFiles,
    FakeInteractionLog,
    FakeKeywordStore,
    FakeLedger,
    FakeRunLog,
    FakeVectorStore,
)
from tests.http import KEYS


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles()


FAKE_ROOTS = "/srv"
"""Where the fakes' collections may be: the tests keep their folders under ``/srv``."""


def fake_runtime(clock: FakeClock, files: FakeFiles, **env: str | None) -> Runtime:
    """A runtime on fresh fakes, for ``STRATA_*`` settings given as keyword arguments (None:
    unset); collections may be registered under ``FAKE_ROOTS`` unless ``collection_roots``
    says otherwise."""
    given = {"collection_roots": FAKE_ROOTS, **env}
    settings = Settings.from_env(
        {f"STRATA_{k.upper()}": v for k, v in given.items() if v is not None}
    )
    return numbered(settings, fake_stores(clock, files), clock)


def fake_stores(clock: FakeClock, files: FakeFiles, **replaced: Any) -> Stores:
    """Fresh fakes, with the stores named in ``replaced`` (``ledger=...``) in their place."""
    stores = Stores(
        ledger=FakeLedger(clock),
        vectors=FakeVectorStore(),
        keywords=FakeKeywordStore(),
        catalog=FakeCatalog(),
        interactions=FakeInteractionLog(),
        files=files,
        embedder=FakeEmbedder(),
        runs=FakeRunLog(),
        coordination=FakeCoordination(),
    )
    return dataclasses.replace(stores, **replaced)


def numbered(settings: Settings, stores: Stores, clock: FakeClock) -> Runtime:
    """The services over ``stores``, giving ids id1, id2, ..."""
    ids = (f"id{n}" for n in itertools.count(1))
    return build_runtime(settings, stores, clock=clock, new_id=lambda: next(ids))


@pytest.fixture
def runtime_for(clock: FakeClock, files: FakeFiles) -> Callable[..., Runtime]:
    """``fake_runtime`` with the test's clock and files."""
    return lambda **env: fake_runtime(clock, files, **env)


def serve(runtime: Runtime) -> Iterator[TestClient[Litestar]]:
    with serving(runtime) as client:
        yield client


@pytest.fixture
def client(runtime_for: Callable[..., Runtime]) -> Iterator[TestClient[Litestar]]:
    """Open mode (no keys), a batch limit of 5 events and a body limit of 100 kB."""
    yield from serve(runtime_for(max_batch="5", max_body_bytes="100000"))


@pytest.fixture
def keyed_runtime(runtime_for: Callable[..., Runtime]) -> Runtime:
    """An admin key and an agent key scoped to namespace ``one``."""
    return runtime_for(api_keys=KEYS)


@pytest.fixture
def keyed(keyed_runtime: Runtime) -> Iterator[TestClient[Litestar]]:
    """A client of ``keyed_runtime``."""
    yield from serve(keyed_runtime)
