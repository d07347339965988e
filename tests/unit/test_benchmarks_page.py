"""docs/benchmarks.md answers its questions with the newest figures only: older runs and
long readings go to the log (docs/benchmarks-log/), so the page stays short enough to read."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"
LIMIT = 40_000


def test_the_benchmarks_page_stays_under_40000_bytes() -> None:
    size = len(PAGE.read_bytes())
    assert size <= LIMIT, (
        f"docs/benchmarks.md is {size} bytes, over {LIMIT}: move older runs and long "
        "readings to their topic's page under docs/benchmarks-log/, verbatim"
    )
