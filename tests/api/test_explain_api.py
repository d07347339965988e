"""``explain`` shows the keyword statistics a search scored by: its namespace's own."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from tests.http import search, write


def test_explain_shows_the_namespaces_own_keyword_statistics(
    client: TestClient[Litestar],
) -> None:
    write(
        client,
        {"namespace": "alice", "tier": "E", "text": "deploy export failed"},
        {"namespace": "alice", "tier": "E", "text": "deploy went out"},
        *({"namespace": "bob", "tier": "E", "text": "export"} for _ in range(3)),
    )
    found = search(client, "which deploy export?", namespace="alice", explain=True)
    assert found["keywords"] == {"documents": 2, "terms": {"deploy": 2, "export": 1}}
    assert search(client, "deploy export", namespace="alice")["keywords"] is None
    vector = search(client, "deploy", namespace="alice", mode="vector", explain=True)
    assert vector["keywords"] is None  # no keyword list was searched
