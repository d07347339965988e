"""Token counts of all-MiniLM-L6-v2's own tokenizers, as each backend binds them: counted from
remembered words and in runs of new ones, they are the counts of each word alone, whatever
the text (accents, CJK, Hangul, control characters, punctuation, words past the window)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.tokens import ALONE, ModelTokens, words
from service.stores.embedder import SentenceTransformerEmbedder, default_model_path
from service.stores.onnx_runtime import load_tokenizer

Tokenizer = Callable[[Sequence[str]], list[int]]


@pytest.fixture(scope="module")
def onnx_tokenizer() -> Tokenizer:
    """``OnnxEmbedder``'s tokenizer: truncating at the window, 256."""
    tokenizer = load_tokenizer(Path(default_model_path()), 256)
    return lambda texts: [len(e.ids) for e in tokenizer.encode_batch(list(texts))]


@pytest.fixture(scope="module", params=["onnx", "torch"])
def tokenizer(
    request: pytest.FixtureRequest, onnx_tokenizer: Tokenizer, embedder: SentenceTransformerEmbedder
) -> Tokenizer:
    """What ``ModelTokens`` is given by each backend: the ONNX one truncates at the window,
    sentence-transformers' does not."""
    if request.param == "onnx":
        return onnx_tokenizer
    return embedder._tokenized


def alone(tokenizer: Tokenizer, text: str) -> int:
    specials = tokenizer([""])[0]
    return sum(max(0, n - specials) for n in tokenizer(words(text)))


WORD = st.one_of(
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=8),
    st.text("한국어.!-aé\u0301数\x00", min_size=1, max_size=130),
    st.from_regex(r"[a-z]{2,12}", fullmatch=True),
)
TEXT = st.one_of(st.lists(WORD, max_size=20), st.lists(WORD, min_size=ALONE, max_size=300)).map(
    " ".join
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TEXT, min_size=1, max_size=3), kept=st.integers(0, 100))
def test_counts_are_those_of_each_word_alone(
    tokenizer: Tokenizer, texts: list[str], kept: int
) -> None:
    counter = ModelTokens(tokenizer, kept=kept)
    plain = [alone(tokenizer, t) for t in texts]
    assert counter.count(texts) == plain
    assert counter.count(texts) == plain
    assert counter.read(texts, 256) == [min(256, 2 + n) for n in plain]


def test_runs_the_window_cuts_are_counted_again_and_add_up(tokenizer: Tokenizer) -> None:
    # Hangul syllables are three letters each to the tokenizer: a run of them passes the
    # window and is counted again in halves; a word of them past the window is one [UNK].
    text = " ".join(f"{'한국' * (k % 9 + 1)}.{k}" for k in range(400))
    counter = ModelTokens(tokenizer)
    assert counter.count([text, "한" * 400]) == [
        alone(tokenizer, text),
        alone(tokenizer, "한" * 400),
    ]
