"""The evidence a retrieve gathers of its own success, and the calibrated confidence."""

from __future__ import annotations

import pytest

from service.domain.answers.confidence import NO_EVIDENCE, Calibration, Evidence, gather
from service.domain.search.query import ListExplain, SearchResult
from service.domain.text import content_terms, named_terms
from tests.fakes import make_entry


def result(
    id: str,
    score: float,
    text: str = "",
    *,
    bm25: tuple[int, float] | None = None,
    vector: tuple[int, float] | None = None,
    rerank: float | None = None,
    speaker: str | None = None,
) -> SearchResult:
    parts = {}
    if bm25:
        parts["bm25"] = ListExplain(*bm25)
    if vector:
        parts["vector"] = ListExplain(*vector)
    if rerank is not None:
        parts["rerank"] = ListExplain(1, rerank)
    entry = make_entry(id, text or f"text {id}", "A", speaker=speaker)
    return SearchResult(entry, entry.text, score, parts)


def test_content_terms_leave_out_function_words_and_short_words() -> None:
    assert content_terms("What did Caroline do at the LGBTQ support group?") == {
        "caroline",
        "lgbtq",
        "support",
        "group",
    }


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("When did Caroline go to the LGBTQ support group?", {"caroline", "lgbtq"}),
        ("Which registry holds our ECR images for GOV.UK Forms?", {"ecr", "gov", "forms"}),
        ('Who wrote "Orion" (the pager)?', {"orion"}),
        ("how is the walrus cluster backed up?", set()),
        ("Caroline left. Where did Melanie go? Paris!", {"melanie"}),
        ("Why? Ask Melanie: she knows.", {"melanie"}),
        ("", set()),
    ],
)
def test_named_terms_are_the_capitalised_content_words_where_no_sentence_begins(
    question: str, named: set[str]
) -> None:
    assert named_terms(question) == named
    assert named_terms(question) <= content_terms(question)


def test_the_margin_is_the_best_score_above_the_mean_of_the_next_nine() -> None:
    results = [result("a", 0.9)] + [result(f"r{n}", 0.5) for n in range(9)] + [result("z", 0.0)]
    evidence = gather("anything", results, results[:1], 1.0)
    assert evidence.margin == pytest.approx(0.4)


def test_agreement_counts_the_first_five_that_both_lists_rank_in_their_first_ten() -> None:
    results = [
        result("both", 0.9, bm25=(1, 3.0), vector=(2, 0.8)),
        result("deep", 0.8, bm25=(12, 1.0), vector=(1, 0.9)),  # BM25 ranked it too low
        result("measured", 0.7, bm25=(2, 2.0), vector=(0, 0.7)),  # cosine measured, not ranked
        result("words", 0.6, bm25=(3, 1.5)),
        result("both2", 0.5, bm25=(4, 1.0), vector=(3, 0.6)),
        result("sixth", 0.4, bm25=(5, 1.0), vector=(4, 0.6)),  # beyond the first five
    ]
    assert gather("q", results, results[:1], 4.0).agreement == pytest.approx(2 / 5)


def test_coverage_keyword_and_cosine_are_read_from_the_best_result() -> None:
    best = result(
        "best",
        0.8,
        "We moved billing to PostgreSQL",
        bm25=(1, 3.0),
        vector=(1, 0.75),
        speaker="Ann",
    )
    other = result("other", 0.5, "billing", bm25=(2, 1.0))
    evidence = gather("Where did Ann move billing to?", [best, other], [best], 6.0)
    # Content words: ann, move, billing; the entry holds ann (its speaker), billing and
    # "moved", of move's stem.
    assert evidence.coverage == pytest.approx(1.0)
    elsewhere = gather("Where did Ann send billing to?", [best, other], [best], 6.0)
    assert elsewhere.coverage == pytest.approx(2 / 3)
    assert evidence.keyword == pytest.approx(0.5)
    assert evidence.cosine == pytest.approx(0.75)
    assert evidence.rerank is None


def test_the_reranker_score_counts_when_there_is_one() -> None:
    best = result("best", 0.8, rerank=0.9)
    assert gather("q", [best], [best], 1.0).rerank == pytest.approx(0.9)
    assert "rerank" in gather("q", [best], [best], 1.0).features()


def test_no_results_no_evidence() -> None:
    assert gather("anything", [], [result("x", 0)], 1.0) == NO_EVIDENCE


def test_confidence_grows_with_each_weighted_feature() -> None:
    calibration = Calibration(-3.0, {"margin": 10.0, "coverage": 2.0}, 0.6)
    weak = Evidence(margin=0.02, agreement=0, coverage=0.1, cosine=0, keyword=0)
    strong = Evidence(margin=0.4, agreement=0, coverage=0.9, cosine=0, keyword=0)
    assert calibration.confidence(weak) < 0.2 < 0.9 < calibration.confidence(strong)
    assert calibration.confidence(weak) > 0 and calibration.confidence(strong) < 1
