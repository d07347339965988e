"""Splitting long entries into overlapping word windows."""

from __future__ import annotations

import itertools

import pytest

from service.domain.memory.chunking import chunk_count, chunk_text


def numbered(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def test_short_text_is_one_chunk_as_written() -> None:
    assert chunk_text("  Alice met Bob\nat noon.  ", words=150, overlap=30) == [
        "Alice met Bob\nat noon."
    ]


def test_text_of_exactly_the_window_is_one_chunk() -> None:
    assert chunk_text(numbered(10), words=10, overlap=3) == [numbered(10)]


def test_long_text_is_windows_of_the_given_size_sharing_overlap() -> None:
    chunks = chunk_text(numbered(20), words=8, overlap=3)
    windows = [c.split() for c in chunks]
    assert windows[0] == [f"w{i}" for i in range(8)]
    assert all(len(w) <= 8 for w in windows)
    assert all(len(w) == 8 for w in windows[:-1])
    for before, after in itertools.pairwise(windows):
        assert before[-3:] == after[:3]


@pytest.mark.parametrize(
    ("n", "words", "overlap"),
    [(11, 10, 0), (20, 8, 3), (21, 8, 3), (23, 8, 3), (151, 150, 30), (1000, 150, 30), (9, 2, 1)],
)
def test_every_word_is_covered_and_last_chunk_reaches_the_end(
    n: int, words: int, overlap: int
) -> None:
    tokens = numbered(n).split()
    chunks = chunk_text(" ".join(tokens), words=words, overlap=overlap)
    assert len(chunks) > 1
    covered = {t for c in chunks for t in c.split()}
    assert covered == set(tokens)
    assert chunks[-1].split()[-1] == tokens[-1]
    assert chunks[0].split()[0] == tokens[0]


def test_no_chunk_lies_wholly_inside_the_one_before() -> None:
    chunks = chunk_text(numbered(16), words=8, overlap=4)
    assert chunks == [
        " ".join(f"w{i}" for i in range(0, 8)),
        " ".join(f"w{i}" for i in range(4, 12)),
        " ".join(f"w{i}" for i in range(8, 16)),
    ]


def test_whitespace_runs_are_collapsed_in_long_text() -> None:
    text = "one\n\ntwo   three\tfour five six"
    assert chunk_text(text, words=4, overlap=1) == ["one two three four", "four five six"]


@pytest.mark.parametrize(("words", "overlap"), [(150, 30), (10, 3), (8, 7), (5, 0), (1, 0)])
def test_chunk_count_is_how_many_chunks_chunk_text_makes(words: int, overlap: int) -> None:
    for n in [0, 1, words - 1, words, words + 1, 2 * words, 5 * words + 3, 1000]:
        text = numbered(n)
        assert chunk_count(text, words, overlap) == len(chunk_text(text, words, overlap)), n
