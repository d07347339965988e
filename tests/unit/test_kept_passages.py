"""The entries and vectors searches read last, kept until their namespace changes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from service.domain.entries import Entry
from service.domain.model import Matrix
from service.domain.search.kept_passages import KeptPassages
from tests.fakes.entries import make_entry


class Ledger:
    """``Passages`` over a dict, counting what it is asked to read."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.read: list[list[str]] = []
        self.during_read: list[str] = []
        """Namespaces a write changes while the next read runs."""
        self.kept: KeptPassages | None = None

    def write(self, entry: Entry) -> None:
        self.entries[f"{entry.namespace}:{entry.id}"] = entry

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        self.read.append(list(keys))
        found: dict[str, tuple[Entry, tuple[str, ...]]] = {
            k: (self.entries[k], (self.entries[k].text,)) for k in keys if k in self.entries
        }
        if self.during_read and self.kept is not None:
            self.kept.changed(self.during_read)
            self.during_read = []
        return found

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        self.read.append(list(keys))
        return {k: np.ones((1, 4), dtype=np.float32) for k in keys if k in self.entries}


def kept_over(ledger: Ledger, clock: list[float] | None = None) -> KeptPassages:
    now = clock or [0.0]
    kept = KeptPassages(ledger, 30.0, lambda: now[0])
    ledger.kept = kept
    return kept


def test_an_entry_read_once_is_not_read_again_until_its_namespace_changes() -> None:
    ledger = Ledger()
    for n in range(3):
        ledger.write(make_entry(f"e{n}", f"text {n}", namespace="a"))
    ledger.write(make_entry("f", "other", namespace="b"))
    kept = kept_over(ledger)
    first = kept.passages(["a:e0", "a:e1", "b:f"])
    assert kept.passages(["b:f", "a:e1", "a:e0"]) == first
    assert ledger.read == [["a:e0", "a:e1", "b:f"]]
    assert kept.passages(["a:e0", "a:e2"])["a:e2"][0].text == "text 2"
    assert ledger.read[-1] == ["a:e2"]  # only what was not kept
    ledger.write(make_entry("e0", "changed", namespace="a"))
    kept.changed(["a"])
    assert kept.passages(["a:e0", "b:f"])["a:e0"][0].text == "changed"
    assert ledger.read[-1] == ["a:e0"]  # namespace b's is still kept


def test_keys_come_back_in_the_order_asked_and_those_not_found_are_left_out() -> None:
    ledger = Ledger()
    for n in range(4):
        ledger.write(make_entry(f"e{n}", "t", namespace="a"))
    kept = kept_over(ledger)
    kept.passages(["a:e2"])
    assert list(kept.passages(["a:e3", "a:gone", "a:e2", "a:e0"])) == ["a:e3", "a:e2", "a:e0"]


def test_what_is_read_while_a_write_changes_its_namespace_is_not_kept() -> None:
    ledger = Ledger()
    ledger.write(make_entry("e", "before", namespace="a"))
    kept = kept_over(ledger)
    ledger.during_read = ["a"]
    assert kept.passages(["a:e"])["a:e"][0].text == "before"
    kept.passages(["a:e"])
    assert len(ledger.read) == 2  # read again: what the first read saw may be older


def test_vectors_are_kept_the_same_way_and_everything_for_the_seconds_at_most() -> None:
    ledger = Ledger()
    ledger.write(make_entry("e", "t", namespace="a"))
    now = [0.0]
    kept = kept_over(ledger, now)
    kept.vectors(["a:e"])
    kept.passages(["a:e"])
    kept.vectors(["a:e"])
    kept.passages(["a:e"])
    assert len(ledger.read) == 2
    now[0] = 31.0
    kept.vectors(["a:e"])
    kept.passages(["a:e"])
    assert len(ledger.read) == 4
    kept.changed(["a"])
    kept.vectors(["a:e"])
    assert len(ledger.read) == 5
