"""Slow writes never hold up searches or the health check: each has threads of its own."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.edge import pools
from service.lib.fair import Recent
from tests.api.conftest import fake_runtime
from tests.fakes import FakeClock, FakeEmbedder, FakeFiles
from tests.http import LOCAL


class GatedEmbedder(FakeEmbedder):
    """Holds any text with "slow" in it until the gate opens."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.held = threading.Semaphore(0)

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if any("slow" in t for t in texts):
            self.held.release()
            self.gate.wait(60)
        return super().embed(texts)


def test_searches_and_health_answer_while_every_write_thread_is_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The one caller of the app: no asker of an earlier test's pools still counts, so its
    # read does not wait for its own write (with others asking, it would: its share).
    monkeypatch.setattr(pools, "_askers", Recent())
    runtime = fake_runtime(FakeClock(), FakeFiles(), search_threads="1", write_threads="1")
    embedder = GatedEmbedder()
    runtime.memory.preparer.embedder = embedder
    with TestClient(create_app(services=runtime.services), base_url=LOCAL) as client:
        fast = {"events": [{"id": "e", "tier": "E", "text": "deploy finished"}]}
        assert client.post("/v1/events", json=fast).status_code == 201
        statuses: list[int] = []

        def slow_write(n: int) -> None:
            body = {"events": [{"id": f"s{n}", "tier": "A", "text": f"slow decision {n}"}]}
            statuses.append(client.post("/v1/events", json=body).status_code)

        writers = [threading.Thread(target=slow_write, args=(n,)) for n in range(3)]
        for writer in writers:
            writer.start()
        assert embedder.held.acquire(timeout=30)  # the write pool's one thread is held
        answers: dict[str, object] = {}

        def read() -> None:
            answers["health"] = client.get("/health").status_code
            found = client.post("/v1/search", json={"query": "deploy", "mode": "bm25"})
            answers["search"] = [r["id"] for r in found.json()["results"]]

        reader = threading.Thread(target=read)
        reader.start()
        try:
            # Behind the held write, the reads would wait for as long as it is held.
            reader.join(20)
            assert answers == {"health": 200, "search": ["e"]}
        finally:
            embedder.gate.set()
            for thread in [reader, *writers]:
                thread.join(60)
        assert statuses == [201, 201, 201]
