"""The one glob matcher of masks and document patterns."""

from __future__ import annotations

import itertools
import random
from fnmatch import fnmatchcase

import pytest

from service.domain.collections.globs import glob_match, may_contain


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("notes/**/*.md", "notes/a.md"),
        ("notes/**/*.md", "notes/x/a.md"),
        ("notes/**/*.md", "notes/x/y/z/a.md"),
        ("**/*.md", "a.md"),
        ("**/*.md", "x/y/a.md"),
        ("**", "a.md"),
        ("**", "x/y/a.md"),
        ("notes/**", "notes/x/a.md"),
        ("a/**/b/**/c.md", "a/b/c.md"),
        ("a/**/b/**/c.md", "a/x/b/y/z/c.md"),
        ("*.md", ".hidden.md"),
        ("?.md", "a.md"),
        ("[ab].md", "b.md"),
        ("[!ab].md", "c.md"),
        ("a**b.md", "a-x-b.md"),
        ("./notes//a.md", "notes/a.md"),
        ("[.md", "[.md"),
    ],
)
def test_paths_that_match(pattern: str, path: str) -> None:
    assert glob_match(pattern, path)


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("notes/*.md", "notes/adr/a.md"),
        ("*", "notes/a.md"),
        ("*.md", "x/a.md"),
        ("?", "a/b"),
        ("notes/**/*.md", "other/a.md"),
        ("notes/**", "notes"),
        ("**/*.md", "a.txt"),
        ("a**b.md", "a/b.md"),
        ("*.MD", "a.md"),
        ("[ab].md", "c.md"),
        ("[!ab].md", "a.md"),
        ("a/**/b/**/c.md", "a/c.md"),
        ("notes/a.md", "notes/a.md/x"),
        ("../a.md", "a.md"),
    ],
)
def test_paths_that_do_not_match(pattern: str, path: str) -> None:
    assert not glob_match(pattern, path)


def test_many_globstars_cost_little() -> None:
    """A hostile pattern of many globstars over a deep path answers at once (no backtracking
    over every way of splitting the path)."""
    pattern = "**/" * 2000 + "x.md"
    path = "/".join(["d"] * 200) + "/y.md"
    assert not glob_match(pattern, path)
    assert glob_match(pattern, path[:-4] + "x.md")


# Property-style cases: random patterns and paths, checked against a brute-force oracle.

NAMES = ["a", "b", "ab", "a.md", "b.md", ".env", "x.txt", "[a"]
PIECES = ["*", "?", "a*", "*.md", "[ab]", "[!a]*", "a.md", "b", "?.md", "**", "[a"]


def oracle(pattern: str, path: str) -> bool:
    """Every way of giving each ``**`` a number of folders (at least one file when it comes
    last), each folder matched by ``*``; then component by component, with ``fnmatch``."""
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    names = path.split("/")
    stars = [i for i, p in enumerate(parts) if p == "**"]
    for counts in itertools.product(range(len(names) + 1), repeat=len(stars)):
        expanded: list[str] = []
        for i, part in enumerate(parts):
            if part != "**":
                expanded.append(part)
                continue
            count = counts[stars.index(i)]
            if i == len(parts) - 1 and count == 0:
                break
            expanded += ["*"] * count
        else:
            if len(expanded) == len(names) and all(
                fnmatchcase(n, p) for n, p in zip(names, expanded, strict=True)
            ):
                return True
    return False


def cases(seed: int, count: int = 400) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        pattern = "/".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))
        path = "/".join(rng.choice(NAMES) for _ in range(rng.randint(1, 5)))
        found.append((pattern, path))
    return found


@pytest.mark.parametrize("seed", range(5))
def test_matching_agrees_with_the_brute_force_oracle(seed: int) -> None:
    for pattern, path in cases(seed):
        assert glob_match(pattern, path) == oracle(pattern, path), (pattern, path)


@pytest.mark.parametrize("seed", range(5))
def test_a_star_never_crosses_a_folder(seed: int) -> None:
    for _, path in cases(seed):
        depth = path.count("/") + 1
        for stars in range(1, 6):
            assert glob_match("/".join(["*"] * stars), path) == (stars == depth), (stars, path)


@pytest.mark.parametrize("seed", range(5))
def test_a_leading_globstar_adds_any_folders(seed: int) -> None:
    rng = random.Random(seed)
    for pattern, path in cases(seed):
        folders = "/".join(rng.choice(NAMES) for _ in range(rng.randint(0, 3)))
        deeper = f"{folders}/{path}" if folders else path
        if glob_match(pattern, path):
            assert glob_match("**/" + pattern, deeper), (pattern, deeper)


@pytest.mark.parametrize("seed", range(5))
def test_no_folder_holding_a_match_is_pruned(seed: int) -> None:
    for pattern, path in cases(seed):
        names = path.split("/")
        if glob_match(pattern, path):
            for depth in range(len(names)):
                assert may_contain(pattern, "/".join(names[:depth])), (pattern, path, depth)


@pytest.mark.parametrize(
    ("pattern", "folder", "expected"),
    [
        ("*.md", "", True),
        ("*.md", "sub", False),
        ("sub/*.md", "sub", True),
        ("sub/*.md", "other", False),
        ("sub/*.md", "sub/deeper", False),
        ("sub/**/*.md", "sub/deeper/still", True),
        ("sub/**/*.md", "other", False),
        ("**/*.md", "any/where", True),
        ("notes/**", "notes/x", True),
    ],
)
def test_folders_that_cannot_hold_a_match_are_pruned(
    pattern: str, folder: str, expected: bool
) -> None:
    assert may_contain(pattern, folder) == expected
