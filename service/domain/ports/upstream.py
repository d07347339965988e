"""Another memory service asked when the local memory finds nothing."""

from __future__ import annotations

from typing import Protocol

from service.domain.model import UpstreamHit


class Upstream(Protocol):
    """Another memory service speaking strata's search contract (docs/reference/api.md, Upstream
    recall), asked when the local memory finds nothing."""

    name: str
    """How results and ``/health`` name it."""

    def search(self, namespace: str, query: str, limit: int, timeout: float) -> list[UpstreamHit]:
        """Its best ``limit`` hits for ``query`` in its ``namespace``, best first, answered
        within ``timeout`` seconds; raises ``UpstreamError`` (``service.domain.recall``)
        when it does not answer in time, cannot be reached or refuses."""
        ...
