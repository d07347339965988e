"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.apps import client_of


@pytest.fixture
def client(opened: Runtime) -> Iterator[TestClient[Litestar]]:
    """A client of an app of its own over the ``opened`` runtime of the module."""
    with client_of(opened) as client:
        yield client
