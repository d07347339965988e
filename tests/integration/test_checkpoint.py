"""A replica's checkpoint file."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.stores.checkpoint import FileCheckpoint


def test_a_checkpoint_reads_back_what_was_saved_last(tmp_path: Path) -> None:
    checkpoint = FileCheckpoint(tmp_path / "replica" / "checkpoint.json")
    assert checkpoint.load() is None
    checkpoint.save(41)
    checkpoint.save(42)
    assert FileCheckpoint(tmp_path / "replica" / "checkpoint.json").load() == 42
    assert sorted(p.name for p in (tmp_path / "replica").iterdir()) == ["checkpoint.json"]


@pytest.mark.parametrize("text", ["", "{", '{"seq": "7"}', '{"seq": -1}', "[1]", '{"seq": true}'])
def test_an_unreadable_checkpoint_counts_as_none(tmp_path: Path, text: str) -> None:
    (tmp_path / "checkpoint.json").write_text(text)
    assert FileCheckpoint(tmp_path / "checkpoint.json").load() is None
