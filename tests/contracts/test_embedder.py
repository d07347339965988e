"""The embedder's contract: FakeEmbedder and the real model (all-MiniLM-L6-v2)."""

from __future__ import annotations

import itertools
import math

import pytest

from service.domain.ports import Embedder
from tests.fakes import FakeEmbedder

TEXTS = [
    "deploy the billing service on Friday",
    "the billing service deploy failed",
    "banana bread recipe with walnuts",
    "",
]


@pytest.fixture(params=["fake", pytest.param("model", marks=pytest.mark.slow)])
def model(request: pytest.FixtureRequest) -> Embedder:
    if request.param == "fake":
        return FakeEmbedder()
    embedder: Embedder = request.getfixturevalue("embedder")
    return embedder


def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_one_unit_vector_of_the_model_s_dimension_per_text_in_order(model: Embedder) -> None:
    vectors = model.embed(TEXTS)
    assert len(vectors) == len(TEXTS)
    for vector in vectors:
        assert len(vector) == model.dimension
        assert math.sqrt(sum(x * x for x in vector)) == pytest.approx(1.0, abs=1e-5)
    assert model.embed([]) == []
    assert isinstance(model.name, str) and model.name
    assert isinstance(model.backend, str) and model.backend


def test_the_same_text_gives_the_same_vector_alone_or_in_a_batch(model: Embedder) -> None:
    batch = model.embed(TEXTS)
    for text, vector in zip(TEXTS, batch, strict=True):
        assert model.embed([text])[0] == pytest.approx(vector, abs=1e-5)
    assert model.embed(TEXTS[::-1])[::-1] == [pytest.approx(v, abs=1e-5) for v in batch]


def test_texts_sharing_words_are_nearer_than_texts_sharing_none(model: Embedder) -> None:
    deploy, failed, bread, _ = model.embed(TEXTS)
    assert cosine(deploy, failed) > cosine(deploy, bread)
    assert cosine(deploy, failed) > cosine(failed, bread)


def test_tokens_count_the_special_tokens_and_grow_with_the_text(model: Embedder) -> None:
    words = ["the", "billing", "service", "deploy", "failed", "again", "on", "Friday"]
    texts = ["", *(" ".join(words[: n + 1]) for n in range(len(words)))]
    counts = model.count_tokens(texts)
    assert len(counts) == len(texts)
    assert counts[0] == 2  # a BERT-style model's [CLS] and [SEP]
    assert all(a < b for a, b in itertools.pairwise(counts))


def test_a_text_s_tokens_are_what_the_model_reads_of_it_but_its_special_tokens(
    model: Embedder,
) -> None:
    texts = [*TEXTS, "Ünïcode, punctuation—and   spaces:\tthe ledger's 2nd try (v1.2.3)!", ""]
    specials = model.count_tokens([""])[0]
    assert [n + specials for n in model.tokens.count(texts)] == model.count_tokens(texts)
    # Counted again from what is remembered: the same.
    assert [n + specials for n in model.tokens.count(texts)] == model.count_tokens(texts)


def test_no_texts_cost_no_tokens(model: Embedder) -> None:
    assert model.count_tokens([]) == []


def test_tokens_stop_at_the_model_s_window(model: Embedder) -> None:
    long, longer = "word " * 1000, "word " * 2000
    short = model.count_tokens(["word"])[0]
    window, same = model.count_tokens([long, longer])
    assert window == same > short
