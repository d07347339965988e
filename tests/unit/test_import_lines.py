"""An export file's lines as an import reads them: bounded in length, bad ones remembered
in bounded memory."""

from __future__ import annotations

from pathlib import Path

from service.application.import_lines import SHOWN, BadLines, Line, read_lines


def test_a_line_over_the_bound_is_read_as_none_and_numbering_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"a\n\n  \n" + b"x" * 10 + b"\n" + b"y" * 11 + b"\n" + b"z" * 25 + b"\nlast")
    read = list(read_lines(path, limit=10))
    assert read == [
        Line(0, 1, b"a\n"),
        Line(1, 4, b"x" * 10 + b"\n"),  # at the bound: read
        Line(2, 5, None),  # one past it
        Line(3, 6, None),  # skipped a block at a time
        Line(4, 7, b"last"),
    ]


def test_an_over_long_last_line_without_its_newline_is_over_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"a\n" + b"y" * 11)
    assert list(read_lines(path, limit=10)) == [Line(0, 1, b"a\n"), Line(1, 2, None)]


def test_bad_lines_are_all_known_and_counted_and_the_first_named() -> None:
    bad = BadLines()
    assert not bad
    lines = [Line(place, place * 2 + 1, b"{}") for place in range(10 * SHOWN)]
    for line in lines[::3]:
        bad.add(line, f"reason {line.number}")
    assert bad and bad.count == len(lines[::3])
    assert bad.shown == [(line.number, f"reason {line.number}") for line in lines[::3][:SHOWN]]
    assert [line in bad for line in lines] == [place % 3 == 0 for place in range(len(lines))]
    assert Line(len(lines) + 100, 0, b"") not in bad
