"""Token counts by the model's tokenizer, on pure fakes: the numbers of counting each word
alone, whatever the words, in bounded memory (the words remembered never more than their
bound) and bounded work (the words no call has seen counted many to a tokenizer text, a text
read only as far as the model's window)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.tokens import ALONE, RUNS_PER_CALL, ModelTokens, words
from tests.fakes import FakeEmbedder

Tokenizer = Callable[[Sequence[str]], list[int]]


class Asked:
    """A tokenizer that keeps every call it is given, and what ``watch`` says at each."""

    def __init__(self, tokenizer: Tokenizer, watch: Callable[[], int] = lambda: 0) -> None:
        self.tokenizer = tokenizer
        self.watch = watch
        self.calls: list[list[str]] = []
        self.watched: list[int] = []

    def __call__(self, texts: Sequence[str]) -> list[int]:
        self.calls.append(list(texts))
        self.watched.append(self.watch())
        return self.tokenizer(texts)

    @property
    def texts(self) -> int:
        return sum(len(call) for call in self.calls)


def dense(window: int) -> Tokenizer:
    """Three tokens a character, as Hangul syllables can be to a WordPiece tokenizer (each
    one three letters once decomposed), two special tokens, none past ``window``."""
    return lambda texts: [min(window, 2 + 3 * len("".join(t.split()))) for t in texts]


def alone(tokenizer: Tokenizer, text: str) -> int:
    """The plain count: each word of ``text`` alone, less the special tokens."""
    specials = tokenizer([""])[0]
    return sum(max(0, n - specials) for n in tokenizer(words(text)))


def fresh(n: int, start: int = 0) -> list[str]:
    """``n`` words never seen before, one to four tokens each to the fake embedder."""
    return ["-x" * (k % 4) + f"w{k}" for k in range(start, start + n)]


def test_words_remembered_never_pass_their_bound_however_many_are_new() -> None:
    kept = 100
    counter: ModelTokens | None = None
    asked = Asked(FakeEmbedder().count_tokens, lambda: counter.remembered if counter else 0)
    counter = ModelTokens(asked, kept=kept)
    start = 0
    for n in (10, 50, ALONE, ALONE + 1, 150, 5_000, 40, 20_000):
        texts = [" ".join(fresh(n, start)), "w1 w2 w3"]
        assert counter.count(texts) == [alone(asked.tokenizer, t) for t in texts]
        assert counter.remembered <= kept
        start += n
    assert max(asked.watched) <= kept


def test_words_seen_are_remembered_and_cost_no_tokenizer_call() -> None:
    asked = Asked(FakeEmbedder().count_tokens)
    counter = ModelTokens(asked)
    seen = fresh(ALONE)
    text, part = " ".join(seen), " ".join(seen[::3])
    assert counter.count([text]) == [alone(asked.tokenizer, text)]
    calls = len(asked.calls)
    assert counter.count([part, text]) == [alone(asked.tokenizer, t) for t in (part, text)]
    assert len(asked.calls) == calls
    assert counter.remembered == ALONE


def test_new_words_are_counted_many_to_a_tokenizer_text_a_bounded_batch_at_a_time() -> None:
    for n in (1_000, 20_000):
        asked = Asked(FakeEmbedder().count_tokens)
        counter = ModelTokens(asked)
        one = " ".join(fresh(n))
        many = [" ".join(fresh(150, k)) for k in range(n, 2 * n, 150)]
        assert counter.count([one, *many]) == [alone(asked.tokenizer, t) for t in [one, *many]]
        # Each word alone would be 2n texts; two probes, the words counted alone and
        # remembered, and then about thirty words to a text.
        assert asked.texts <= 2 + ALONE + len(many) + 2 * n // 20
        assert max(len(call) for call in asked.calls) <= RUNS_PER_CALL


def test_a_text_is_read_only_as_far_as_the_model_s_window() -> None:
    asked = Asked(FakeEmbedder().count_tokens)
    counter = ModelTokens(asked)
    assert counter.read([" ".join(fresh(100_000)), "w1 w2"], 256) == [256, 4]
    read = sum(FakeEmbedder.token_count(t) - 2 for call in asked.calls for t in call)
    assert read <= 3 * 256 + 482  # the special tokens, the probe, and about the window


def test_runs_the_tokenizer_cut_at_its_window_are_counted_again_in_halves() -> None:
    tokenizer = dense(64)
    counter = ModelTokens(tokenizer)
    text = " ".join(f"가{k}" for k in range(500))  # a word of 2 to 4 characters: 6 to 12 tokens
    assert counter.count([text]) == [alone(tokenizer, text)]
    long_word = "가" * 200  # over the window alone: what counting it alone gives
    assert counter.count([long_word, f"{text} {long_word}"]) == [
        alone(tokenizer, long_word),
        alone(tokenizer, f"{text} {long_word}"),
    ]


WORD = st.one_of(
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=6),
    st.text("ab-,.!가\x00", min_size=1, max_size=140),
    st.sampled_from(["w1", "w2", "the", "ledger"]),
    st.integers(0, 10**6).map(lambda k: f"n{k}"),  # most of them new
)
TEXT = st.one_of(st.lists(WORD, max_size=20), st.lists(WORD, min_size=ALONE, max_size=300)).map(
    " ".join
)


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(TEXT, min_size=1, max_size=4),
    fake=st.sampled_from(["words", "dense"]),
    window=st.integers(8, 600),
    kept=st.integers(0, 80),
    read=st.integers(1, 300),
)
def test_counts_are_those_of_each_word_alone_whatever_the_words(
    texts: list[str], fake: str, window: int, kept: int, read: int
) -> None:
    tokenizer = FakeEmbedder(window=window).count_tokens if fake == "words" else dense(window)
    counter = ModelTokens(tokenizer, kept=kept)
    plain = [alone(tokenizer, t) for t in texts]
    assert counter.count(texts) == plain
    assert counter.count(texts[::-1]) == plain[::-1]  # from what is remembered
    specials = tokenizer([""])[0]
    assert counter.read(texts, read) == [min(read, specials + n) for n in plain]
    assert counter.remembered <= kept
