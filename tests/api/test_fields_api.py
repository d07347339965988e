"""A search's ``fields``: each hit carries its id, its score and the fields asked for alone."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from schemas import wire
from tests.http import search, write

ENTRIES = (
    {"namespace": "ops", "tier": "A", "text": "We deploy on Thursdays", "speaker": "ana"},
    {"namespace": "ops", "tier": "A", "text": "Deploy freezes start in December"},
    {"namespace": "ops", "tier": "E", "text": "deploy 4711 failed: disk full", "tags": ["ci"]},
)


@pytest.fixture
def written(client: TestClient[Litestar]) -> None:
    write(client, *ENTRIES)


def hits(client: TestClient[Litestar], **asked: Any) -> list[dict[str, object]]:
    found = search(client, "when do we deploy?", namespace="ops", mode="bm25", **asked)
    results: list[dict[str, object]] = found["results"]
    assert results
    return results


def test_every_field_of_a_hit_is_a_field_a_search_may_ask_for() -> None:
    assert set(get_args(wire.HitField)) == set(wire.SearchHit.__struct_fields__)


@pytest.mark.usefixtures("written")
def test_a_hit_carries_every_field_unless_fields_are_asked_for(
    client: TestClient[Litestar],
) -> None:
    whole = hits(client)
    assert {"namespace", "tier", "text", "timestamp", "tags", "snippet", "kind"} <= set(whole[0])
    bare = hits(client, fields=[])
    assert [set(hit) for hit in bare] == [{"id", "score"}] * len(whole)
    # The same search: the same hits in the same order with the same scores.
    assert [(h["id"], h["score"]) for h in bare] == [(h["id"], h["score"]) for h in whole]


@pytest.mark.usefixtures("written")
def test_a_hit_carries_just_the_fields_asked_for(client: TestClient[Litestar]) -> None:
    whole = {hit["id"]: hit for hit in hits(client)}
    for asked in (["snippet"], ["tier", "tags", "speaker"], ["text", "id", "score", "text"]):
        for hit in hits(client, fields=asked):
            assert set(hit) == {"id", "score", *asked}
            assert hit == {name: whole[str(hit["id"])][name] for name in hit}


@pytest.mark.usefixtures("written")
def test_an_explanation_is_shown_when_asked_for_and_kept_among_the_fields(
    client: TestClient[Litestar],
) -> None:
    explained = hits(client, explain=True, fields=["explain"])
    assert all(set(hit) == {"id", "score", "explain"} for hit in explained)
    assert all("bm25" in hit["explain"] for hit in explained)  # type: ignore[operator]
    # A field shown only on some hits, or only when asked, is left out when it has no value.
    assert all(set(hit) == {"id", "score"} for hit in hits(client, fields=["explain", "file"]))


@pytest.mark.parametrize(
    "fields",
    [["password"], ["text", "entry"], "text", [None], [["text"]], {"text": True}],
    ids=["unknown", "one-unknown", "a-string", "null", "nested", "an-object"],
)
def test_fields_that_are_not_a_list_of_hit_fields_are_refused(
    client: TestClient[Litestar], fields: object
) -> None:
    response = client.post("/v1/search", json={"query": "deploy", "fields": fields})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "fields" in response.json()["detail"]
