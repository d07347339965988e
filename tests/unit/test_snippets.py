"""Which part of an entry a search result shows."""

from __future__ import annotations

import pytest

from service.domain.search.snippets import (
    SCAN_CHARS,
    SNIPPET_CHARS,
    best_chunk,
    query_terms,
    snippet,
)


def filler(n: int, word: str = "lorem") -> str:
    return " ".join([word] * n)


def test_query_terms_are_lowercased_words_longer_than_two_letters() -> None:
    assert query_terms("What did Alice say to me about the DB-migration?") == {
        "what",
        "did",
        "alice",
        "say",
        "about",
        "the",
        "migration",
    }


def test_short_text_is_returned_whole() -> None:
    text = "Alice prefers tea in the morning."
    assert snippet(text, {"coffee"}) == text
    assert snippet(text, {"tea"}) == text


def test_long_text_window_shows_the_first_query_term() -> None:
    text = f"{filler(200)} the deployment failed on friday {filler(200)}"
    shown = snippet(text, {"deployment"})
    assert "deployment failed" in shown
    assert len(shown) <= SNIPPET_CHARS + 4
    assert shown.startswith("… ")
    assert shown.endswith(" …")


@pytest.mark.parametrize(
    ("text", "terms", "part"),
    [
        pytest.param(
            f"{filler(100)} friday came {filler(100)} deployment here {filler(100)}",
            {"deployment", "friday"},
            "friday",
            id="the earliest of several terms",
        ),
        pytest.param(
            f"{filler(200)} The DEPLOYMENT failed {filler(200)}",
            {"deployment"},
            "DEPLOYMENT",
            id="terms matched case-insensitively",
        ),
        pytest.param(
            # A log line: a long token (hash, URL, base64) before the matching word.
            "token=" + "a" * 400 + " deployment failed " + filler(100),
            {"deployment"},
            "deployment",
            id="the term after a long unbroken token",
        ),
        pytest.param(
            f"concatenate the files {filler(100)} then the cat sat down {filler(100)}",
            {"cat"},
            "the cat sat",
            id="the query word, not a word containing it",
        ),
    ],
)
def test_the_window_shows(text: str, terms: set[str], part: str) -> None:
    assert part in snippet(text, terms)


@pytest.mark.parametrize(
    ("text", "terms", "start", "end"),
    [
        pytest.param(
            f"start here {filler(300)}",
            {"absent"},
            "start here",
            " …",
            id="long text without a term shows its beginning",
        ),
        pytest.param(
            f"deployment failed {filler(300)}",
            {"deployment"},
            "deployment failed",
            "",
            id="a term near the start gives no leading ellipsis",
        ),
        pytest.param(
            f"{filler(300)} the deployment failed",
            {"deployment"},
            "… ",
            "the deployment failed",
            id="a term near the end gives no trailing ellipsis",
        ),
    ],
)
def test_the_window_starts_and_ends(text: str, terms: set[str], start: str, end: str) -> None:
    shown = snippet(text, terms)
    assert shown.startswith(start)
    assert shown.endswith(end)


def test_window_never_cuts_a_word_in_half() -> None:
    text = f"{filler(200, 'alpha')} deployment {filler(200, 'omega')}"
    shown = snippet(text, {"deployment"}).removeprefix("… ").removesuffix(" …")
    assert set(shown.split()) <= {"alpha", "deployment", "omega"}


def test_best_chunk_is_the_one_sharing_most_terms() -> None:
    chunks = ["alice went home", "bob fixed the deployment on friday", "deployment notes"]
    assert best_chunk(chunks, {"deployment", "friday"}) == 1


def test_best_chunk_ties_and_no_overlap_give_the_first() -> None:
    assert best_chunk(["alpha one", "alpha two"], {"alpha"}) == 0
    assert best_chunk(["alpha", "beta"], {"gamma"}) == 0
    assert best_chunk(["only"], set()) == 0


def test_best_chunk_reads_an_entry_only_to_its_bound() -> None:
    """A chunk past the first ``SCAN_CHARS`` characters is never read: the cost of a hit is
    bounded whatever the length of its entry."""
    chunk = filler(199) + " "
    within = SCAN_CHARS // len(chunk)
    chunks = [chunk] * within + ["postgres billing decision " + chunk] * 5
    assert best_chunk(chunks, {"postgres", "billing"}) == 0
    chunks[within - 1] = "postgres billing decision"
    assert best_chunk(chunks, {"postgres", "billing"}) == within - 1
    # Many terms (past one expression's worth) are bounded alike.
    many = {f"term{n}" for n in range(40)} | {"postgres"}
    assert best_chunk(chunks, many) == within - 1
