"""``/v1/context`` over real stores and the real model: a block within its budget as the
model's own tokenizer counts it, cited, without replaced entries, logged for feedback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from tokenizers import Tokenizer

from service.settings import Settings
from service.stores.embedder import default_model_path
from tests.http import DECISIONS, problem, write
from tests.integration.test_api import OpenStores, client_for

FILLER = " ".join(
    f"Item {n} of the retrospective covered the office plants and the coffee rota."
    for n in range(80)
)
LONG = (
    f"{FILLER} The billing service stores its invoices in PostgreSQL because it needs "
    f"transactions. {FILLER}"
)
"""An entry of several thousand model tokens, its answer in the middle."""


@pytest.fixture
def client(tmp_path: Path, open_stores: OpenStores) -> Iterator[TestClient[Litestar]]:
    yield from client_for(open_stores(Settings().replace(data_dir=tmp_path)))


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    """The model's tokenizer as shipped, with no window: the count the budget is held to."""
    shipped = Tokenizer.from_file(str(Path(default_model_path()) / "tokenizer.json"))
    shipped.no_truncation()
    shipped.no_padding()
    return shipped


def tokens(tokenizer: Tokenizer, text: str) -> int:
    return len(tokenizer.encode(text, add_special_tokens=False).ids)


def context(client: TestClient[Litestar], question: str, **fields: Any) -> dict[str, Any]:
    response = client.post("/v1/context", json={"question": question, **fields})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_block_cites_the_decision_first_and_says_what_it_replaces(
    client: TestClient[Litestar], tokenizer: Tokenizer
) -> None:
    write(
        client,
        {**DECISIONS[0], "id": "db-1", "text": "Billing keeps its invoices in MySQL."},
        *DECISIONS[1:],
        {"id": "notes", "tier": "C", "text": LONG, "speaker": "alice"},
    )
    write(client, {**DECISIONS[0], "id": "db-2", "speaker": "alice", "supersedes": ["db-1"]})
    made = context(client, "Which database did we pick for billing?", asker="pm-bot")
    block = made["context"]
    assert made["tokens"] == tokens(tokenizer, block) <= made["max_tokens"] == 512
    first = made["entries"][0]
    assert first["id"] == "db-2" and first["replaces"] == ["db-1"]
    assert first["citation"].startswith("[db-2 ") and first["citation"].endswith(" alice]")
    # Entries of one year: the heading says it once.
    heading, line, *_ = block.splitlines()
    assert re.fullmatch(r"### Decisions and facts \(\d{4}\)", heading)
    assert line.startswith("- " + first["citation"] + " " + DECISIONS[0]["text"])
    assert "(replaces db-1)" in block
    assert "MySQL" not in block and "[db-1 ·" not in block
    assert "db-1" not in [e["id"] for e in made["entries"]] + made["left_out"]
    for item in made["entries"] + made["reasoning_patterns"]:
        assert item["citation"] in block
    # A reasoning pattern is shown only whole, so whether it fits at 512 tokens depends on
    # how much of the budget the long discussion takes (as the ranking scores it). With one
    # entry asked for, the pattern that applies fits beside the decision.
    one = context(client, "Which database did we pick for billing?", max_entries=1)
    assert [e["id"] for e in one["entries"]] == ["db-2"]
    assert [p["id"] for p in one["reasoning_patterns"]] == ["how"]
    assert one["reasoning_patterns"][0]["citation"] in one["context"]
    assert made["degraded"] == []
    rated = client.post(
        "/v1/feedback", json={"interaction_id": made["interaction_id"], "rating": "up"}
    )
    assert rated.status_code == 201, rated.text
    report = client.get("/v1/reports/daily").json()
    assert report["questions"] == 2 and report["feedback"]["up"] == 1


def test_a_long_entry_is_cut_around_its_best_passage(
    client: TestClient[Litestar], tokenizer: Tokenizer
) -> None:
    write(client, {"id": "notes", "tier": "C", "text": LONG, "speaker": "alice"})
    made = context(client, "Where are the billing invoices stored?", max_tokens=200)
    assert tokens(tokenizer, made["context"]) == made["tokens"] <= 200
    (notes,) = made["entries"]
    assert notes["cut"] and notes["text"].startswith("… ") and notes["text"].endswith(" …")
    assert "stores its invoices in PostgreSQL because it needs transactions." in notes["text"]
    assert notes["text"] in made["context"]


@pytest.mark.parametrize("budget", [32, 48, 100, 300])
def test_the_block_never_exceeds_a_small_budget(
    client: TestClient[Litestar], tokenizer: Tokenizer, budget: int
) -> None:
    write(client, *DECISIONS, {"id": "notes", "tier": "C", "text": LONG, "speaker": "alice"})
    made = context(client, "Where are the billing invoices stored?", max_tokens=budget)
    assert tokens(tokenizer, made["context"]) == made["tokens"] <= budget
    assert made["entries"], made
    shown = {e["id"] for e in made["entries"]}
    assert shown | set(made["left_out"]) >= {"db", "notes"}


def test_a_larger_budget_considers_more_entries_unless_the_caller_caps_them(
    client: TestClient[Litestar], tokenizer: Tokenizer
) -> None:
    rooms = ["north", "south", "east", "west", "upper", "lower", "inner", "outer"]
    people = ["alice", "bob", "carol", "dave", "erin"]
    days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    # No two texts share more than one of room, person and day: none is a near-repeat.
    write(
        client,
        *(
            {
                "id": f"batch-{n}",
                "tier": "A",
                "text": f"Invoice batch {n} is kept in the {rooms[n % 8]} vault, "
                f"checked by {people[n % 5]} every {days[n % 7]}.",
            }
            for n in range(30)
        ),
    )
    question = "Where is each invoice batch kept?"
    small = context(client, question, max_tokens=256)
    large = context(client, question, max_tokens=2048)
    capped = context(client, question, max_tokens=2048, max_entries=10)
    assert tokens(tokenizer, large["context"]) == large["tokens"] <= 2048
    assert len(small["entries"]) <= 10 < len(large["entries"])
    assert len(capped["entries"]) + len(capped["left_out"]) <= 10
    assert not any(e.get("cut") for e in large["entries"])


def test_filters_narrow_what_the_block_holds(client: TestClient[Litestar]) -> None:
    write(client, *DECISIONS, {"id": "notes", "tier": "C", "text": LONG})
    made = context(client, "billing invoices database", tiers=["C"], format="text")
    assert [e["id"] for e in made["entries"]] == ["notes"]
    assert re.match(r"Discussions \(\d{4}\):\n\[notes ", made["context"])


def test_nothing_relevant_gives_the_empty_block(client: TestClient[Litestar]) -> None:
    write(client, {"id": "nuts", "tier": "A", "text": "Alice is allergic to peanuts."})
    made = context(client, "Who won the football world cup in 1998?")
    assert made["nothing_relevant"] is True and made["entries"] == []
    assert made["context"] == "### Memory\nNothing relevant in memory."
    assert made["interaction_id"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": "x", "max_tokens": 31}, "max_tokens"),
        ({"question": "x", "max_tokens": 32_769}, "max_tokens"),
        ({"question": " "}, "question"),
        ({"question": "x", "format": "html"}, "format"),
        ({"question": "x", "since": "2026-02-01", "until": "2026-01-01"}, "until"),
    ],
)
def test_bad_context_requests_name_the_field(
    client: TestClient[Litestar], body: dict[str, Any], field: str
) -> None:
    found = problem(client.post("/v1/context", json=body), 422)
    fields = [e["field"] for e in found.get("errors", [])]
    assert field in fields or field in found["detail"]
