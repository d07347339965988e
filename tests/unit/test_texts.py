"""What BM25 indexes and the model embeds of an entry."""

from __future__ import annotations

from service.domain.memory.texts import CONTEXT_CHARS, embedding_input, keyword_text, turn_text
from tests.fakes import T0, make_entry


def test_keyword_text_holds_context_speaker_variants_and_day() -> None:
    entry = make_entry(
        "p",
        "Weigh transactions first.",
        "A",
        speaker="ann",
        context="bob: Which datastore?",
        variants=("payments: ACID",),
    )
    assert keyword_text(entry) == (
        "bob: Which datastore?\nann: Weigh transactions first.\npayments: ACID\n"
        "(on 14 November 2023)"
    )


def test_file_chunks_carry_no_day() -> None:
    chunk = make_entry("f", "## Decision", "A", metadata={"file": "notes/a.md"})
    assert keyword_text(chunk) == "## Decision"


def test_the_model_reads_the_speaker_but_not_the_context() -> None:
    entry = make_entry("t", "Yes.", "C", speaker="bob", context="ann: Lisbon?")
    assert embedding_input(entry, "Yes.") == "bob: Yes."


def test_context_is_kept_short() -> None:
    long = make_entry("l", "word " * 1000, "E", timestamp=T0)
    assert len(turn_text(long)) == CONTEXT_CHARS
