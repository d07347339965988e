"""Learned fusion: its features, the shipped model, and fairness to entries without vectors."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from service.domain.entries import Entry
from service.domain.model import Hit, Matrix
from service.domain.search.fusion import ScoreFusion
from service.domain.search.learned import (
    ANSWERABLE_TEXT_FEATURES,
    FEATURES,
    SETTLED,
    SHIPPED,
    LearnedFusion,
    RankingModel,
    entry_features,
    text_features,
)
from service.domain.search.list_features import (
    CLOSEST,
    LIST_FEATURES,
    ListFeatures,
    list_features,
    rank_feature,
)
from service.domain.search.query import Candidate, Lists
from service.errors import ConfigError
from tests.fakes.keyword_store import bounded

VECTORS: dict[str, list[list[float]]] = {"embedded-alone": [[0.2, 0.98]]}


def chunk_vectors(keys: object) -> dict[str, Matrix]:
    return {k: np.asarray(v, dtype=np.float32) for k, v in VECTORS.items() if k in keys}  # type: ignore[operator]


def learned(model: RankingModel | None = None, bound: float = 4.0) -> LearnedFusion:
    single = ScoreFusion(0.7, bounded(bound), chunk_vectors)
    return LearnedFusion(model or RankingModel.load(SHIPPED), single, chunk_vectors)


def entry(key: str, text: str, tier: str = "A") -> Entry:
    return Entry(id=key, namespace="ns", tier=tier, text=text, timestamp=0.0)  # type: ignore[arg-type]


def by_key(features: ListFeatures) -> dict[str, dict[str, float]]:
    return {key: features.of(row) for row, key in enumerate(features.keys)}


def test_no_candidate_no_features() -> None:
    assert list_features([], 1.0, {}, []).matrix.shape == (0, len(LIST_FEATURES))


def test_list_features_mark_a_candidate_without_a_cosine_as_unembedded() -> None:
    bm25 = [Hit("log", 4.0), Hit("fact", 2.0)]
    vector = [Hit("fact", 0.8)]
    features = by_key(list_features(bm25, 4.0, {"fact": 0.8}, vector))
    assert features["log"]["unembedded"] == 1.0
    assert features["log"]["cosine"] == 0.0
    assert features["log"]["keyword"] == 1.0
    assert features["log"]["keyword_unembedded"] == 1.0
    assert features["fact"]["unembedded"] == 0.0
    assert features["fact"]["keyword_unembedded"] == 0.0
    assert features["fact"]["keyword_top"] == 0.5
    assert features["fact"]["cosine_top"] == 1.0
    assert features["fact"]["vector_rank"] == 1.0
    assert features["fact"]["bm25_rank"] == pytest.approx(rank_feature(2))
    # Every row carries the pool's closest vector, the log's too.
    assert features["log"][CLOSEST] == features["fact"][CLOSEST] == 0.8
    loaded = entry_features(set(), entry("x", "y"), 1.0, {}, cued=False)
    assert set(features["log"]) | set(loaded) == {*FEATURES, *ANSWERABLE_TEXT_FEATURES, CLOSEST}


def test_a_key_listed_twice_keeps_its_first_rank() -> None:
    features = by_key(list_features([Hit("a", 3.0), Hit("b", 2.0), Hit("a", 1.0)], 3.0, {}, []))
    assert features["a"]["bm25_rank"] == 1.0
    assert features["a"]["keyword"] == 1.0


def test_rank_feature_falls_slowly_and_is_zero_when_unranked() -> None:
    assert rank_feature(1) == 1.0
    assert rank_feature(2) == 0.5
    assert rank_feature(0) == 0.0
    assert rank_feature(4) > rank_feature(8) > 0


def test_text_features_cover_the_questions_content_words() -> None:
    found = text_features(
        {"billing", "moved", "eu"}, entry("x", "We moved billing to Frankfurt"), 0.0
    )
    assert found["coverage"] == pytest.approx(2 / 3)
    assert found["coverage_unembedded"] == 0.0
    assert found["length"] == pytest.approx(math.log1p(5) / 5)


def test_names_is_the_share_of_the_questions_names_an_entry_holds() -> None:
    text = replace(entry("x", "Caroline joined the support group"), speaker="Melanie")
    assert text_features(set(), text, 0.0, {"caroline", "gina"})["names"] == 0.5
    assert text_features(set(), text, 0.0, {"melanie"})["names"] == 1.0
    assert text_features(set(), text, 0.0, {"orion"})["names"] == 0.0
    assert text_features(set(), text, 0.0, set())["names"] == 1.0
    assert text_features(set(), text, 0.0)["names"] == 1.0


def test_speaker_named_marks_an_entry_spoken_by_someone_the_question_names() -> None:
    turn = replace(entry("x", "I joined the support group yesterday"), speaker="Caroline")
    assert text_features(set(), turn, 0.0, {"caroline"})["speaker_named"] == 1.0
    assert text_features(set(), turn, 0.0, {"melanie", "caroline"})["speaker_named"] == 1.0
    assert text_features(set(), turn, 0.0, {"melanie"})["speaker_named"] == 0.0
    assert text_features(set(), turn, 0.0)["speaker_named"] == 0.0
    # Named in the text is not spoken by: the text's share is ``names``.
    about = replace(entry("y", "Caroline joined the support group"), speaker="Melanie")
    assert text_features(set(), about, 0.0, {"caroline"})["speaker_named"] == 0.0
    assert text_features(set(), entry("z", "no speaker"), 0.0, {"caroline"})["speaker_named"] == 0.0


def test_length_counts_no_more_than_a_chunk() -> None:
    chunk = text_features(set(), entry("x", "word " * 150), 0.0)["length"]
    document = text_features(set(), entry("x", "word " * 5000), 0.0)["length"]
    assert document == chunk == pytest.approx(math.log1p(150) / 5)


def test_the_shipped_model_loads_and_weighs_every_feature() -> None:
    model = RankingModel.load(SHIPPED)
    assert set(model.weights) == set(FEATURES)
    assert model.list_weights is not None and set(model.list_weights) == set(LIST_FEATURES)
    assert model.intent is not None and model.intent.dimensions == 384  # all-MiniLM-L6-v2
    assert model.scale > 0
    assert 0 < model.probability(model.logit({f: 1.0 for f in FEATURES})) < 1


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        json.dumps({"weights": {"keyword": 1.0}, "scale": 1.0}),
        json.dumps({"weights": {"nonsense": 1.0}, "scale": 1.0, "bias": 0.0}),
        json.dumps({"weights": {"keyword": "NaN"}, "scale": 1.0, "bias": 0.0}),
        json.dumps({"weights": [], "scale": 1.0, "bias": 0.0}),
    ],
)
def test_a_broken_model_file_is_a_config_error(tmp_path: Path, raw: str) -> None:
    path = tmp_path / "ranking.json"
    path.write_text(raw)
    with pytest.raises(ConfigError, match="ranking model"):
        RankingModel.load(path)


def test_a_model_survives_its_json() -> None:
    model = RankingModel({"keyword": 2.0, "cosine": 3.0}, 0.5, -4.0, "test")
    path = Path(__file__).parent / "unused"
    assert RankingModel(**json.loads(model.to_json())) == model
    assert not path.exists()


def test_a_log_with_strong_keyword_evidence_beats_an_embedded_entry_sharing_one_word() -> None:
    """The unfairness learned fusion removes: a log line that holds the question's words
    outranks a decision that merely shares one of them, though only the decision has a
    vector (a blend of BM25 and cosine reads the log's missing cosine as 0)."""
    lists = {
        "bm25": [Hit("log", 3.8), Hit("decision", 1.0)],
        "vector": [Hit("decision", 0.35)],
    }
    fused = learned().fuse(
        Lists("why did the billing export fail", "ns", lists, (1.0, 0.0)), limit=10
    )
    assert [f.key for f in fused] == ["log", "decision"]
    blended = ScoreFusion(0.7, bounded(4.0), chunk_vectors).fuse(
        Lists("why did the billing export fail", "ns", lists, (1.0, 0.0)), limit=10
    )
    assert blended[0].score < 0.7 * 1.0 and blended[0].key == "log"


def test_fused_scores_are_probabilities_best_first_and_at_least_settled_many() -> None:
    lists = {
        "bm25": [Hit(f"k{n}", 40.0 - n * 0.3) for n in range(50)],
        "vector": [Hit(f"k{n}", 0.9 - n * 0.01) for n in range(0, 50, 2)],
    }
    fused = learned(bound=40.0).fuse(Lists("q", "ns", lists, (1.0, 0.0)), limit=5)
    scores = [f.score for f in fused]
    # Text features may lift a candidate from below the page: SETTLED are loaded at least.
    assert len(fused) == SETTLED
    assert all(0 < s < 1 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert all(f.features is not None for f in fused)
    assert (
        len(learned(bound=40.0).fuse(Lists("q", "ns", lists, (1.0, 0.0)), limit=SETTLED + 5))
        == SETTLED + 5
    )


def test_a_bm25_candidate_with_stored_vectors_gets_its_cosine_from_the_ledger() -> None:
    lists = {"bm25": [Hit("embedded-alone", 2.0)], "vector": [Hit("other", 0.5)]}
    fused = {f.key: f for f in learned().fuse(Lists("q", "ns", lists, (0.0, 1.0)), limit=5)}
    features = fused["embedded-alone"].features
    assert features is not None and features["unembedded"] == 0.0
    assert features["cosine"] == pytest.approx(0.98, abs=1e-3)
    assert fused["embedded-alone"].explain["vector"].rank == 0


def test_a_search_of_one_list_is_scored_as_score_fusion_scores_it() -> None:
    lists = {"bm25": [Hit("a", 2.0), Hit("b", 1.0)]}
    fused = learned(bound=2.0).fuse(Lists("q", "ns", lists, None), limit=5)
    assert [(f.key, f.score) for f in fused] == [("a", 1.0), ("b", 0.5)]
    assert all(f.features is None for f in fused)


def test_settle_completes_each_score_with_the_text_and_explains_every_part() -> None:
    model = RankingModel({"keyword": 1.0, "coverage": 4.0}, 1.0, -2.0)
    lists = {"bm25": [Hit("vague", 4.0), Hit("precise", 3.0)], "vector": [Hit("x", 0.1)]}
    found = Lists("billing export", "ns", lists, (1.0, 0.0))
    fused = {f.key: f for f in learned(model).fuse(found, 5)}
    texts = {"vague": "the export", "precise": "the billing export failed", "x": "nothing"}
    candidates = [
        Candidate(entry(k, texts[k], "E"), texts[k], f.score, dict(f.explain), f.score, f.features)
        for k, f in fused.items()
    ]
    settled = learned(model).settle(found, candidates, explain=True)
    assert [c.entry.id for c in settled][:2] == ["precise", "vague"]
    best = settled[0]
    assert best.explain["model.coverage"].score == pytest.approx(4.0)
    assert best.explain["model.keyword"].score == pytest.approx(0.75)
    assert best.score == pytest.approx(model.probability(4.75))
    assert best.relevance == best.score


def test_settle_leaves_candidates_without_features_as_they_are() -> None:
    candidate = Candidate(entry("a", "text"), "text", 0.4, {}, 0.4, None)
    assert learned().settle(Lists("q", "ns", {}, None), [candidate], explain=True)[0].score == 0.4


def test_settle_explains_nothing_unless_asked() -> None:
    lists = {"bm25": [Hit("a", 4.0)], "vector": [Hit("a", 0.5)]}
    found = Lists("a b", "ns", lists, (1.0, 0.0))
    hit = learned().fuse(found, 5)[0]
    candidate = Candidate(
        entry("a", "a b"), "a b", hit.score, dict(hit.explain), hit.score, hit.features
    )
    settled = learned().settle(found, [candidate], explain=False)[0]
    assert not any(name.startswith("model.") for name in settled.explain)
