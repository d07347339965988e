"""Fused candidates loaded from the ledger: what is dropped, which chunk is shown."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.entries import DIGEST, Chunk, Entry, StoredEntry
from service.domain.model import Hit
from service.domain.search.fusion import FusedHit, RankFusion, ScoreFusion
from service.domain.search.hydration import hydrate
from service.domain.search.query import Candidate, ListExplain, SearchQuery
from tests.fakes import FakeLedger, make_entry, make_filters
from tests.fakes.keyword_store import bounded

SCORE = ScoreFusion(0.7, bounded(1.0), lambda keys: {})


def put(ledger: FakeLedger, entry: Entry, *chunks: str) -> None:
    vector = (1.0, 0.0)
    stored = tuple(Chunk(entry.key, n, text, vector) for n, text in enumerate(chunks))
    ledger.put([StoredEntry(entry, stored)])


def fused(*keys: str, vector_chunk: int | None = None) -> list[FusedHit]:
    return [
        FusedHit(k, 1.0 - n / 10, {}, None if vector_chunk is None else Hit(k, 0.5, vector_chunk))
        for n, k in enumerate(keys)
    ]


def query(text: str = "billing", **filters: Any) -> SearchQuery:
    return SearchQuery(text, make_filters(**filters))


def candidates_of(ledger: FakeLedger, hits: list[FusedHit], asked: SearchQuery) -> list[Candidate]:
    return hydrate(ledger, hits, asked)[1]


def test_candidates_keep_the_fused_order_and_scores() -> None:
    ledger = FakeLedger()
    for name in ("b", "a", "c"):
        put(ledger, make_entry(name, f"billing {name}"))
    kept, candidates = hydrate(ledger, fused("ns:c", "ns:a", "ns:b"), query())
    assert [(c.entry.id, c.score) for c in candidates] == [("c", 1.0), ("a", 0.9), ("b", 0.8)]
    relevances = SCORE.relevances(kept, None)
    assert [relevances[h.key] for h in kept] == [1.0, 0.9, 0.8]


def test_deleted_foreign_and_expired_entries_are_dropped() -> None:
    ledger = FakeLedger()
    put(ledger, make_entry("live", "billing"))
    put(ledger, make_entry("other", "billing", namespace="elsewhere"))
    now = make_filters().now
    put(ledger, make_entry("expired", "billing", "C", expires_at=now))
    put(ledger, make_entry("deleting", "billing"))
    ledger.mark_deleting(["ns:deleting"])
    keys = ("ns:gone", "elsewhere:other", "ns:expired", "ns:deleting", "ns:live")
    candidates = candidates_of(ledger, fused(*keys), query())
    assert [c.entry.id for c in candidates] == ["live"]
    archived = candidates_of(ledger, fused(*keys), query(include_archived=True))
    assert [c.entry.id for c in archived] == ["expired", "live"]


def test_passage_is_the_vector_stores_chunk_else_the_one_with_most_query_terms() -> None:
    ledger = FakeLedger()
    put(
        ledger,
        make_entry("long", "intro. billing outage. the end"),
        "intro",
        "billing outage",
        "end",
    )
    by_terms = candidates_of(ledger, fused("ns:long"), query("billing outage"))
    assert by_terms[0].passage == "billing outage"
    by_vector = candidates_of(ledger, fused("ns:long", vector_chunk=2), query())
    assert by_vector[0].passage == "end"
    # A chunk number past the entry's chunks (an entry rewritten shorter) shows its last.
    past = candidates_of(ledger, fused("ns:long", vector_chunk=7), query())
    assert past[0].passage == "end"


def test_an_entry_without_chunks_shows_its_text() -> None:
    ledger = FakeLedger()
    put(ledger, make_entry("e", "disk full on node three", "E"))
    assert candidates_of(ledger, fused("ns:e"), query("disk"))[0].passage == (
        "disk full on node three"
    )


def test_the_candidates_kept_are_those_the_fusion_measures_the_relevance_of() -> None:
    ledger = FakeLedger()
    put(ledger, make_entry("a", "billing"), "billing")
    put(ledger, make_entry("e", "billing", "E"))
    rrf = RankFusion({}, 10.0, ledger.vectors)
    kept, candidates = hydrate(ledger, fused("ns:a", "ns:gone", "ns:e"), query())
    assert [h.key for h in kept] == ["ns:a", "ns:e"]
    assert [c.relevance for c in candidates] == [None, None]
    relevances = rrf.relevances(kept, (0.6, 0.8))
    assert [relevances[h.key] for h in kept] == [pytest.approx(0.6), None]


def test_each_candidate_gets_its_own_explain() -> None:
    ledger = FakeLedger()
    put(ledger, make_entry("a", "billing"))
    hit = fused("ns:a")[0]._replace(explain={"bm25": ListExplain(1, 2.5)})
    candidate = candidates_of(ledger, [hit], query())[0]
    candidate.explain["tier"] = ListExplain(0, 0.5)
    assert set(hit.explain) == {"bm25"}  # later layers write to the candidate's copy only


def test_a_digest_shows_the_passage_bm25_scored() -> None:
    ledger = FakeLedger()
    head, first, second = (
        "Digest of 2020-01-01: 2 entries.",
        "[09:00:00 id a] billing",
        "[09:01:00 id b] x",
    )
    put(
        ledger,
        make_entry("digest:d", "\n".join([head, first, second]), "E", kind=DIGEST),
        head,
        first,
        second,
    )
    put(ledger, make_entry("log", "a", "E"), "a billing", "b")
    hits = [
        FusedHit(key, 1.0, {}, keyword_hit=Hit(key, 2.0, 2)) for key in ("ns:digest:d", "ns:log")
    ]
    candidates = candidates_of(ledger, hits, query())
    # the digest's line BM25 found, though another holds more query terms; any other
    # entry's chunk is the one with most query terms
    assert [c.passage for c in candidates] == [second, "a billing"]


def test_an_entry_is_given_how_well_the_best_of_those_it_replaced_matched() -> None:
    ledger = FakeLedger()
    for name in ("notify", "smtp", "other"):
        put(ledger, make_entry(name, "send by email"))
    ses = make_entry("ses", "use Amazon SES")
    ledger.put([StoredEntry(ses, ())], supersedes=[("ns:notify", "ns:ses"), ("ns:smtp", "ns:ses")])
    features = {
        "ns:notify": {"cosine_top": 0.9, "keyword_top": 0.4},
        "ns:smtp": {"cosine_top": 0.2, "keyword_top": 0.6},
        "ns:ses": {"cosine_top": 0.5, "keyword_top": 0.5},
    }
    hits = [
        hit._replace(features=features.get(hit.key))
        for hit in fused("ns:notify", "ns:ses", "ns:smtp", "ns:other")
    ]
    candidates = candidates_of(ledger, hits, query())
    assert {c.entry.id: c.replaced_match for c in candidates} == {"ses": 0.9, "other": 0.0}
    # Another fusion knows no list features: nothing is said of what an entry replaced.
    plain = candidates_of(ledger, fused("ns:notify", "ns:ses"), query())
    assert [c.replaced_match for c in plain] == [0.0]
