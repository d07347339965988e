"""What the `strata` commands print for a service's answers."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import msgspec

from schemas import wire
from service.cli import render

ENTRY: dict[str, Any] = {
    "id": "adr-7",
    "namespace": "default",
    "tier": "A",
    "text": "Services talk over gRPC.",
    "timestamp": "2024-05-01T12:00:00Z",
    "speaker": "alice",
    "role": None,
    "chain_type": None,
    "tags": [],
    "expires_at": None,
    "archived": False,
    "metadata": {},
    "kind": "memory",
    "type": None,
    "confidence": None,
    "variants": [],
    "thread": None,
}


def hit(**fields: Any) -> wire.SearchHit:
    return msgspec.convert(
        {**ENTRY, "snippet": "talk over gRPC", "score": 0.8, **fields}, wire.SearchHit
    )


def found(
    *hits: wire.SearchHit, degraded: list[str] | None = None, dropped: int = 0
) -> wire.SearchResponse:
    return wire.SearchResponse(list(hits), "hybrid", 3.5, degraded or [], dropped=dropped)


def answered(**fields: Any) -> wire.RetrievedEntry:
    parts = {"relevance": 0.7, "type": 0.5, "confidence": 0.5, "freshness": 1.0}
    values = {"snippet": "talk over gRPC", "relevance_score": 0.71, "score": 0.66, "parts": parts}
    return msgspec.convert({**ENTRY, **values, **fields}, wire.RetrievedEntry)


def retrieved(**fields: Any) -> wire.RetrieveResponse:
    values: dict[str, Any] = {
        "interaction_id": "i-1",
        "entries": [answered()],
        "strong_match": True,
        "answer_confidence": 0.82,
        "best_relevance": 0.71,
        "threshold": 0.65,
        "reasoning_patterns": [],
        "took_ms": 12.0,
        "degraded": [],
    }
    return wire.RetrieveResponse(**{**values, **fields})


def test_a_text_hit_shows_score_tier_place_and_snippet() -> None:
    chunk = hit(id="c1", file="notes/deploys.md", lines="1-3", archived=True)
    assert render.search_text(found(hit(), chunk)) == (
        "0.800  A  adr-7\n"
        "       talk over gRPC\n"
        "0.800  A  notes/deploys.md:1-3 (archived)\n"
        "       talk over gRPC\n"
    )


def test_nothing_found_says_nothing_is_relevant_and_what_the_floor_left_out() -> None:
    assert render.search_text(found()) == "nothing relevant in memory\n"
    assert render.search_text(found(dropped=3)) == (
        "nothing relevant in memory (3 hits below the relevance floor; --min-score 0 shows them)\n"
    )
    assert "(1 hit below" in render.search_text(found(dropped=1))
    assert render.search_md(found(dropped=3)).startswith("*nothing relevant in memory (3 hits")
    assert render.search_csv(found(dropped=3)).splitlines() == [
        "score,tier,id,namespace,timestamp,snippet"
    ]
    assert json.loads(render.search_json(found(dropped=3)))["dropped"] == 3


def test_markdown_rows_keep_a_snippet_in_its_cell() -> None:
    table = render.search_md(found(hit(snippet="a | b\nc")))
    assert table.splitlines()[2] == "| 0.800 | A | adr-7 | a \\| b c |"


def test_csv_rows_read_back_as_the_hits() -> None:
    text = 'said "no", then left'
    rows = list(csv.DictReader(io.StringIO(render.search_csv(found(hit(snippet=text))))))
    assert rows == [
        {
            "score": "0.8",
            "tier": "A",
            "id": "adr-7",
            "namespace": "default",
            "timestamp": "2024-05-01T12:00:00Z",
            "snippet": text,
        }
    ]


def test_json_is_what_the_service_sent_indented() -> None:
    """The service's own encoding, decoded as the client does, prints as the body itself
    would: same fields, same order, defaults left out where the service leaves them out."""
    sent = msgspec.json.encode(
        found(hit(text="naïve ünïcode"), hit(id="c1", file="n/a.md", lines="2-4", score_pct=80))
    )
    decoded = msgspec.json.decode(sent, type=wire.SearchResponse)
    printed = render.search_json(decoded)
    assert printed == json.dumps(json.loads(sent), indent=2, ensure_ascii=False) + "\n"
    first, chunk = json.loads(printed)["results"]
    assert "file" not in first and "explain" not in first
    assert chunk["file"] == "n/a.md" and chunk["score_pct"] == 80
    assert "naïve ünïcode" in printed


def test_json_of_several_answers_together() -> None:
    health = wire.Health("ok", "all-MiniLM-L6-v2", None, {"ledger": 3}, [])
    printed = json.loads(render.as_json({"health": health, "promoted": ["q1"]}))
    assert printed["health"]["model"] == "all-MiniLM-L6-v2"
    assert printed["health"]["stores"] == {"ledger": 3} and printed["promoted"] == ["q1"]


def test_retrieve_gives_the_verdict_first() -> None:
    lines = render.retrieve_text(retrieved()).splitlines()
    assert lines[0] == "strong match (confidence 0.82, threshold 0.65); interaction i-1"
    assert lines[1:] == ["0.660  rel 0.710  A  adr-7", "       talk over gRPC"]
    weak = render.retrieve_text(retrieved(strong_match=False, entries=[], answer_confidence=0.0))
    assert weak == (
        "no strong match (confidence 0.00, threshold 0.65); interaction i-1\n"
        "nothing relevant in memory\n"
    )
    judged = retrieved(strong_match=False, answer_confidence=0.0, reference_id="r-9")
    assert render.retrieve_text(judged).startswith(
        "no strong match (confidence 0.00, as reference r-9 says); interaction i-1\n"
    )


def test_retrieve_lists_patterns_with_their_variants() -> None:
    pattern = answered(id="p1", kind="pattern", text="Weigh the data first.", variants=["x", "y"])
    lines = render.retrieve_text(retrieved(reasoning_patterns=[pattern])).splitlines()
    assert lines[-3:] == ["pattern p1: Weigh the data first.", "       - x", "       - y"]


def test_degraded_reasons_a_line_each() -> None:
    assert render.degraded_text(["chroma unreachable", "no model"]) == (
        "degraded: chroma unreachable\ndegraded: no model\n"
    )
    assert render.degraded_text([]) == ""


def test_documents_under_headers_and_the_skipped_with_reasons() -> None:
    doc = wire.DocumentOut(
        path="notes/a.md", title="A", first_line=1, last_line=1, total_lines=1, text="1| # A"
    )
    docs = wire.DocumentsResponse([doc], [wire.Skipped("notes/big.md", "larger than 1000 bytes")])
    assert render.documents_text(docs) == "==> notes/a.md <==\n1| # A\n\n"
    assert render.skipped_text(docs) == "skipped notes/big.md: larger than 1000 bytes\n"


def test_collections_a_tab_separated_line_each() -> None:
    notes = wire.CollectionOut(
        name="notes",
        namespace="default",
        path="/srv/notes",
        mask="**/*.md",
        tier="A",
        files=12,
        created_at="2024-05-01T12:00:00Z",
        scanned_at=None,
    )
    listed = render.collections_text(wire.CollectionsResponse([notes]))
    assert listed == "notes\t12 files\tA\tdefault\t/srv/notes\n"


def test_progress_bar_fills_with_the_work_done() -> None:
    assert render.progress_bar(5, 10) == f"\r[{'#' * 15}{'.' * 15}] 5/10"
    assert render.progress_bar(0, 0, "indexing") == f"\rindexing [{'#' * 30}] 0/0"
    assert render.progress_bar(0, 4).count("#") == 0


def test_an_upstream_hit_names_its_upstream() -> None:
    upstream = {"name": "central", "namespace": "team", "id": "adr-7"}
    shown = found(hit(source="upstream", upstream=upstream))
    assert render.search_text(shown).splitlines()[0] == (
        "0.800  A  adr-7 (upstream central, namespace team)"
    )
    assert "| adr-7 (upstream central, namespace team) |" in render.search_md(shown)


def test_a_superseded_hit_says_what_replaced_it() -> None:
    text = render.search_text(found(hit(superseded_by="adr-9")))
    assert text.splitlines()[0] == "0.800  A  adr-7 (superseded by adr-9)"


def test_an_answer_shows_what_its_entries_replaced() -> None:
    old = {"id": "adr-3", "at": "2024-04-01T09:00:00Z", "actor": "bob", "text": "REST only."}
    text = render.retrieve_text(retrieved(entries=[answered(supersedes=[old])]))
    assert "       replaces adr-3 (2024-04-01T09:00:00Z): REST only." in text.splitlines()


def test_a_write_reports_repeats_replacements_and_similar_entries() -> None:
    written = msgspec.convert(
        {
            "ids": ["adr-7", "adr-8"],
            "embedded": 1,
            "indexed": 1,
            "written": [
                {"id": "adr-7", "duplicate_of": "adr-7"},
                {
                    "id": "adr-8",
                    "supersedes": ["adr-3"],
                    "similar": [{"id": "adr-5", "tier": "A", "similarity": 0.71}],
                },
            ],
        },
        wire.EventsResponse,
    )
    assert render.written_text(written).splitlines() == [
        "adr-7: already stored (duplicate_of); nothing new written",
        "adr-8: supersedes adr-3",
        "adr-8: similar to adr-5 (tier A, cosine 0.71); "
        "if it replaces it: strata add ... --supersedes adr-5",
    ]
