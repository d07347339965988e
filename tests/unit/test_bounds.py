"""The bounds of an entry: one check for every way one is written, the fitting of an entry
from elsewhere, and retrieve's score held to [0, 1] whatever an entry holds."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import msgspec
import pytest

from schemas import wire
from service.application.export_lines import entry_line
from service.domain.answers.policy import AnswerPolicy
from service.domain.entries import Entry, ExportedEntry, StoredEntry
from service.domain.memory.bounds import breaches, fitted
from service.settings import ChunkingSettings
from tests.settings import CHUNKING, answer_settings

T = 1_800_000_000.0
AT_BOUNDS = Entry(
    id="i" * 128,
    namespace="n" * 64,
    tier="C",
    text="word " * 150,
    timestamp=253_402_300_799.0,
    speaker="s" * 200,
    role="r" * 200,
    chain_type="c" * 200,
    tags=tuple(f"{n:0>200}" for n in range(64)),
    expires_at=253_402_300_799.0,
    metadata={f"{n:0>200}": "x" * 10_000 for n in range(64)},
    kind="pattern",
    type="t" * 200,
    confidence=1.0,
    variants=tuple(f"{n}" * 10_000 for n in range(10)) + ("v",) * 54,
    thread="h" * 200,
)
"""An entry at every bound at once."""

PAST: dict[str, dict[str, Any]] = {
    "id": {"id": "i" * 129},
    "namespace": {"namespace": "a:b"},
    "text": {"text": " \n "},
    "timestamp": {"timestamp": -1.0},
    "expires_at": {"tier": "A"},
    "speaker": {"speaker": "s" * 201},
    "role": {"role": ""},
    "tags": {"tags": ("t",) * 65},
    "tags[3]": {"tags": ("a", "b", "c", "t" * 201)},
    "metadata": {"metadata": {f"k{n}": n for n in range(65)}},
    "metadata.blob": {"metadata": {"blob": "x" * 10_001}},
    "metadata.nan": {"metadata": {"nan": math.nan}},
    "metadata.list": {"metadata": {"list": [1, 2]}},
    "confidence": {"confidence": 1e308},
    "variants": {"kind": "memory"},
    "variants[0]": {"variants": ("v" * 10_001,)},
    "context": {"context": "c" * 1_000_001},
}
"""Each bound passed by one field, by the field named."""


def test_an_entry_at_every_bound_is_within_them() -> None:
    assert breaches(AT_BOUNDS, CHUNKING) == []


@pytest.mark.parametrize("field", PAST)
def test_each_bound_passed_is_named(field: str) -> None:
    found = breaches(replace(AT_BOUNDS, **PAST[field]), CHUNKING)
    assert [b.field for b in found] == [field]


def test_a_text_of_more_chunks_than_the_bound_is_out_of_bounds() -> None:
    three = ChunkingSettings(words=10, overlap=2, max_chunks=3)
    words = [f"w{n}" for n in range(27)]
    assert breaches(replace(AT_BOUNDS, text=" ".join(words[:26])), three) == []
    (found,) = breaches(replace(AT_BOUNDS, text=" ".join(words)), three)
    assert (found.field, found.message) == (
        "text",
        "too long: 4 chunks of 10 words, at most 3 per entry",
    )


def test_only_a_digest_has_a_digest_id_and_nested_metadata() -> None:
    digest = Entry("digest:2027-01-15:day", "ns", "E", "Digest of ...", T, kind="digest")
    assert breaches(replace(digest, metadata={"digest": {"entries": 3}}), CHUNKING) == []
    memory = replace(digest, kind="memory")
    assert [b.field for b in breaches(memory, CHUNKING)] == ["id"]
    nested = replace(AT_BOUNDS, metadata={"digest": {"entries": 3}})
    assert [b.field for b in breaches(nested, CHUNKING)] == ["metadata.digest"]


def test_an_entry_within_bounds_is_an_export_line_that_decodes() -> None:
    """What the domain lets in, an export carries and an import reads back."""
    line = entry_line(ExportedEntry(StoredEntry(AT_BOUNDS, ()), (), ()), vectors=False)
    decoded = msgspec.json.decode(msgspec.json.encode(line), type=wire.ExportLine)
    assert decoded == line


HOSTILE = Entry(
    id="h1",
    namespace="ns",
    tier="A",
    text="Invoices are archived after seven years.",
    timestamp=-1e12,
    speaker="s" * 20_000,
    role="",
    tags=tuple(f"t{n % 900}" for n in range(1000)),
    expires_at=T + 10,
    metadata={"blob": "x" * 200_000, "list": [1], "nan": math.inf, "ok": 1, "": 2},
    confidence=1e308,
    variants=("not a pattern's",),
)


def test_an_entry_from_elsewhere_is_fitted_within_bounds_where_a_field_can_be() -> None:
    fit = fitted(HOSTILE)
    assert breaches(fit, CHUNKING) == []
    assert fit.speaker == "s" * 200 and fit.role is None
    assert fit.tags == tuple(f"t{n}" for n in range(64))
    assert fit.metadata == {"ok": 1}
    assert (fit.confidence, fit.timestamp, fit.expires_at, fit.variants) == (1.0, 0.0, None, ())
    assert fit.text == HOSTILE.text
    assert fitted(fit) == fit


@pytest.mark.parametrize(("given", "kept"), [(-3.0, 0.0), (math.nan, None), (0.25, 0.25)])
def test_a_confidence_is_held_to_its_range_and_one_not_a_number_is_unknown(
    given: float, kept: float | None
) -> None:
    assert fitted(replace(HOSTILE, confidence=given)).confidence == kept


def test_a_text_is_never_cut() -> None:
    blank = fitted(replace(HOSTILE, text="  "))
    assert [b.field for b in breaches(blank, CHUNKING)] == ["text"]


@pytest.mark.parametrize("confidence", [1e308, -1e308, math.inf, math.nan, None])
@pytest.mark.parametrize("relevance", [5.0, -2.0, math.nan, 0.7])
def test_retrieves_score_stays_in_the_unit_range_whatever_an_entry_holds(
    confidence: float | None, relevance: float
) -> None:
    policy = AnswerPolicy.of(answer_settings())
    entry = replace(HOSTILE, confidence=confidence, timestamp=T + 1e9)
    parts = policy.parts(entry, relevance, T)
    assert all(0.0 <= v <= 1.0 for v in parts.values())
    assert 0.0 <= policy.score(parts) <= 1.0
