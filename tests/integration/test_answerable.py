"""Whether memory holds an answer at all, over the real model, Tantivy and Chroma, on SQLite
and Postgres: a question about something never recorded gets nothing, even where entries
share a word with it, and one memory answers keeps its page. (A question on the entries' own
subject that memory cannot answer, "which database does the recipe app use?", still gets the
closest decision at a low score: the floor is set where it costs almost no recall.)"""

from __future__ import annotations

import json
from pathlib import Path

from service.domain.search.learned import SHIPPED
from service.settings import Settings
from tests.http import ids, retrieve, search, write
from tests.integration.test_intent import LEDGER, PLAIN, OpenStores, client_for, settings

__all__ = ["settings"]

NEVER_RECORDED = (
    "how do emperor penguins keep their eggs warm through the winter?",
    "who won the chess tournament last spring?",
)
"""Questions whose best candidates the ranking model alone scores above the floor."""


def test_a_question_memory_never_recorded_gets_nothing(
    settings: Settings, open_stores: OpenStores
) -> None:
    for client in client_for(open_stores(settings)):
        write(client, *LEDGER)
        found = search(client, PLAIN, explain=True)
        assert ids(found)[0] == "adr-7"
        assert found["results"][0]["explain"]["answerable"]["score"] > 0.5
        for question in NEVER_RECORDED:
            found = search(client, question)
            assert found["results"] == [], (question, found["results"])
            assert found["dropped"] > 0
            answer = retrieve(client, question)
            assert answer["entries"] == [] and answer["strong_match"] is False


CONVERSATION = [
    {
        "id": "turn-1",
        "tier": "E",
        "speaker": "Melanie",
        "text": "I finally opened my pottery studio last week, the kiln arrived on Monday.",
        "timestamp": "2026-05-04T18:00:00Z",
    },
    {
        "id": "turn-2",
        "tier": "C",
        "speaker": "Caroline",
        "text": "Congratulations! I went to the support group yesterday, it was so powerful.",
        "timestamp": "2026-05-04T18:01:00Z",
    },
    {
        "id": "fact-1",
        "tier": "A",
        "speaker": "Melanie",
        "text": "Melanie runs a pottery studio and teaches a class on Saturdays.",
        "timestamp": "2026-05-05T09:00:00Z",
    },
]


def test_a_question_about_someone_memory_never_recorded_is_told_from_one_it_answers(
    settings: Settings, open_stores: OpenStores
) -> None:
    """The same question about the one who said it and about a stranger: the stranger's
    name is in no entry, so memory is far less likely to hold the answer, though every other
    word matches; asked about something else too, it gets nothing."""
    for client in client_for(open_stores(settings)):
        # A namespace of its own: the other tests here share a Chroma server on Postgres.
        write(client, *({**event, "namespace": "talks"} for event in CONVERSATION))
        known = search(
            client, "When did Melanie open her pottery studio?", explain=True, namespace="talks"
        )
        assert ids(known)[0] == "turn-1"
        held = known["results"][0]["explain"]["answerable"]["score"]
        assert held > 0.9
        stranger = search(
            client, "When did Gina open her pottery studio?", explain=True, namespace="talks"
        )
        assert stranger["results"][0]["explain"]["answerable"]["score"] < held / 2
        assert stranger["results"][0]["score"] < known["results"][0]["score"] / 2
        elsewhere = "Where did Gina go on holiday?"
        found = search(client, elsewhere, namespace="talks")
        assert found["results"] == [] and found["dropped"] > 0
        answer = retrieve(client, elsewhere, namespace="talks")
        assert answer["entries"] == [] and answer["strong_match"] is False


def test_without_the_answerable_model_the_same_questions_get_a_page(
    settings: Settings, open_stores: OpenStores, tmp_path: Path
) -> None:
    """The same model without its answerable part: the empty answers above are its doing."""
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    raw.pop("answerable")
    plain = tmp_path / "without-answerable.json"
    plain.write_text(json.dumps(raw), encoding="utf-8")
    for client in client_for(open_stores(settings.replace(ranking_model=str(plain)))):
        write(client, *LEDGER)
        assert all(search(client, question)["results"] for question in NEVER_RECORDED)
