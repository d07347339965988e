"""The README is the front door: every relative link in it leads to a file of the repository,
and every anchor to a heading of the page it names."""

from __future__ import annotations

import re
from pathlib import Path

from tests.readme import fenced_blocks

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose(markdown: str) -> str:
    """``markdown`` without its fenced blocks, where brackets are code, not links."""
    lines = markdown.splitlines()
    for block in reversed(fenced_blocks(markdown)):
        end = block.line + len(block.text.splitlines()) + 1
        del lines[block.line - 1 : end]
    return "\n".join(lines)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it, where the README is read: lower case,
    punctuation dropped, each space a hyphen (MkDocs, which checks the docs' own anchors,
    folds runs of them into one)."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def anchors(page: Path) -> set[str]:
    return {
        slug(m.group(1))
        for line in prose(page.read_text()).splitlines()
        if (m := HEADING.match(line))
    }


def relative_links(markdown: str) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(markdown))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


def test_the_readme_links_to_files_that_exist() -> None:
    links = relative_links(README.read_text())
    assert any(link.startswith("docs/") for link in links), "the README leads into the docs"
    missing = [link for link in links if not (ROOT / link.split("#")[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_readme_anchors_name_headings_of_their_pages() -> None:
    broken = []
    for link in relative_links(README.read_text()):
        path, _, anchor = link.partition("#")
        page = ROOT / path if path else README
        if anchor and page.suffix == ".md" and anchor not in anchors(page):
            broken.append(link)
    assert not broken, f"README.md links to anchors no heading makes: {broken}"


def test_headings_make_the_anchors_the_docs_link_to() -> None:
    assert slug("## `POST /v1/events` — store events"[3:]) == "post-v1events--store-events"
    assert slug("Load (bench.load)") == "load-benchload"
    assert slug("Metrics and traces: what they cost (2026-11-24)") == (
        "metrics-and-traces-what-they-cost-2026-11-24"
    )


def first_command(markdown: str) -> int | None:
    """The line of the first fenced block that runs ``strata``, or None."""
    for block in fenced_blocks(markdown):
        if any(line.startswith("strata ") for line in block.text.splitlines()):
            return block.line
    return None


def test_pages_say_where_the_strata_command_is_before_running_it() -> None:
    """``make serve`` puts ``strata`` in the virtualenv, not on the PATH: a page that runs it
    says so before its first example does."""
    untold = []
    for page in (README, ROOT / "docs/guide/quickstart.md", ROOT / "docs/guide/cli.md"):
        lines = page.read_text().splitlines()
        first = first_command(page.read_text())
        before = "\n".join(lines[: first or len(lines)])
        if ".venv/bin/strata" not in prose(before):
            untold.append(page.name)
    assert not untold, f"these pages run strata before saying where it is: {untold}"
