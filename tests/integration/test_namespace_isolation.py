"""A namespace's scores depend on its own memory and the question, nothing else: over the real
model, Tantivy and Chroma, on SQLite and Postgres, whatever another namespace writes, deletes
or erases (its words the same as this one's or not), a search's results, scores and
``explain`` and retrieve's verdict in this one stay what they were."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as run
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from service.settings import Settings
from tests.http import retrieve, search, write
from tests.integration.test_intent import OpenStores, client_for, settings

__all__ = ["settings"]

ALICE = [
    {"id": "db", "tier": "A", "type": "decision", "text": "We chose Postgres for billing."},
    {"id": "diet", "tier": "A", "text": "I am allergic to peanuts, so never suggest satay."},
    {"id": "talk", "tier": "C", "text": "Should the zyzzogeton export move to Kafka or stay?"},
    {"id": "log", "tier": "E", "text": "billing export failed: zyzzogeton timeout at 09:14"},
]
QUESTIONS = (
    "which database did we pick for billing?",
    "zyzzogeton",
    "billing export",
    "peanut allergy",
)
WORDS = ["zyzzogeton", "billing", "export", "postgres", "peanut", "kafka", "lunch", "ridge"]
"""What the other namespace writes: Alice's rarest words among others."""

other_writes = st.lists(
    st.tuples(
        st.sampled_from(["write", "delete", "erase"]),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
        st.sampled_from(["A", "C", "E"]),
        st.integers(0, 5),
    ),
    min_size=1,
    max_size=4,
)


def seen(client: TestClient[Litestar]) -> list[Any]:
    """What Alice's questions get, less what is the request's own (ids, timings)."""
    got: list[Any] = []
    for question in QUESTIONS:
        found = search(client, question, namespace="alice", explain=True, min_score=0)
        got.append((found["results"], found["keywords"]))
        floored = search(client, question, namespace="alice")
        got.append([(r["id"], r["score"]) for r in floored["results"]])
        answer = retrieve(client, question, namespace="alice")
        got.append(
            (
                answer["answer_confidence"],
                answer["strong_match"],
                [(e["id"], e["score"]) for e in answer["entries"]],
            )
        )
    return got


def test_another_namespace_never_moves_a_namespaces_scores(
    settings: Settings, open_stores: OpenStores
) -> None:
    for client in client_for(open_stores(settings)):
        write(client, *({**e, "namespace": "alice"} for e in ALICE))
        untouched_by_bob(client)


def untouched_by_bob(client: TestClient[Litestar]) -> None:
    before = seen(client)
    assert before[0] and before[1]  # the questions find something to compare

    @run(
        max_examples=6,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
        database=None,
    )
    @given(other_writes)
    def writes_elsewhere(changes: list[tuple[str, list[str], str, int]]) -> None:
        for action, words, tier, n in changes:
            if action == "write":
                event = {"id": f"b{n}", "tier": tier, "text": " ".join(words)}
                write(client, {**event, "namespace": "bob"})
            elif action == "delete":
                client.delete(f"/v1/entries/b{n}", params={"namespace": "bob"})
            else:
                erased = client.delete("/v1/namespaces/bob", params={"confirm": "bob"})
                assert erased.status_code == 200, erased.text
        assert seen(client) == before

    writes_elsewhere()


def test_an_erased_namespace_leaves_no_word_in_any_keyword_index_file(
    settings: Settings, open_stores: OpenStores
) -> None:
    index = settings.storage.data_dir / "tantivy"
    for client in client_for(open_stores(settings)):
        write(client, *({**e, "namespace": "alice"} for e in ALICE))
        # Terms are compressed in the index's files; the stored entry key is there as written.
        write(client, {"id": "quixotic-ledger", "namespace": "bob", "tier": "E", "text": "x y"})
        assert holding(index, b"bob:quixotic-ledger")
        erased = client.delete("/v1/namespaces/bob", params={"confirm": "bob"})
        assert erased.status_code == 200, erased.text
        assert holding(index, b"bob:quixotic-ledger") == []
        assert holding(index, b"alice:db")  # the others' stay


def holding(root: Path, marker: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and marker in p.read_bytes()]
