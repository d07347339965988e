"""``GET /v1/stats`` over the fakes: the model work of reads, as each key may see it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.api.conftest import serve
from tests.http import AS_ADMIN, AS_AGENT, KEYS, search, write


@pytest.fixture
def client(runtime_for: Callable[..., Runtime]) -> Iterator[TestClient[Litestar]]:
    yield from serve(runtime_for(api_keys=KEYS, fusion="score", unembedded_candidates="3"))


def test_read_time_work_is_shown_per_namespace_and_queries_to_keys_that_see_all(
    client: TestClient[Litestar],
) -> None:
    for ns in ("one", "two"):
        write(
            client,
            {"namespace": ns, "tier": "A", "text": "checkout retry policy"},
            *[
                {"namespace": ns, "tier": "E", "text": f"checkout retry {n} in {ns} exited 1"}
                for n in range(4)
            ],
            headers=AS_ADMIN,
        )
    search(client, "checkout retry", headers=AS_ADMIN, namespace="two")
    search(client, "checkout retry", headers=AS_AGENT, namespace="one")

    admin = client.get("/v1/stats", headers=AS_ADMIN).json()
    by_ns = {ns["namespace"]: ns["read_time"] for ns in admin["namespaces"]}
    assert by_ns["one"]["texts"] == by_ns["two"]["texts"] == 3
    # The same query text twice: the second search reuses the query's vector.
    assert admin["read_time"]["queries"]["calls"] == 1
    assert admin["read_time"]["passages"]["tokens"] == admin["totals"]["tokens_read_time"]
    assert admin["totals"]["tokens_read_time"] == by_ns["one"]["tokens"] + by_ns["two"]["tokens"]
    assert admin["read_time"]["since"].endswith("Z")

    agent = client.get("/v1/stats", headers=AS_AGENT).json()
    assert [ns["namespace"] for ns in agent["namespaces"]] == ["one"]
    assert agent["read_time"]["queries"] is None
    assert agent["read_time"]["passages"] == by_ns["one"]
    assert agent["totals"]["tokens_read_time"] == by_ns["one"]["tokens"]
