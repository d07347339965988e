"""How tests/e2e/test_readme.py reads the README and the docs: blocks, commands, shown outputs,
and which pages it runs."""

from __future__ import annotations

import pytest

from tests.readme import CHAINS, ROOT, examples, fenced_blocks, mismatches, pages, pattern, runnable

MARKDOWN = """\
Intro.

<!-- not run: needs Docker -->
```sh
docker compose up
```

```sh
ADMIN='Authorization: Bearer k'   # a comment
# Promote one entry.
curl -s -X POST localhost:8080/v1/admin/promote -H "$ADMIN" \\
  -d '{"ids": ["a"],
       "namespace": "alice"}'
# 422 {"title": "Invalid input",
#      "errors": [{"field": "ids[0]", …}]}   (nothing promoted)
# A note after the output.
```

- A list:

  ```json
  {"a": 1}
  ```
"""


def test_blocks_carry_their_language_and_marker() -> None:
    blocks = fenced_blocks(MARKDOWN)
    assert [(b.line, b.language, b.not_run) for b in blocks] == [
        (4, "sh", "needs Docker"),
        (8, "sh", None),
        (21, "json", None),
    ]
    assert blocks[2].text == '{"a": 1}'


def test_commands_span_lines_and_keep_the_output_shown_after_them() -> None:
    assign, promote = examples(fenced_blocks(MARKDOWN)[1])
    assert assign.line == 9 and assign.shown is None
    assert promote.line == 11
    assert promote.command.endswith('"namespace": "alice"}\'')
    assert promote.shown == (
        422,
        '{"title": "Invalid input",\n     "errors": [{"field": "ids[0]", …}]}',
    )


def test_an_unclosed_command_is_refused() -> None:
    with pytest.raises(ValueError, match="not closed"):
        examples(fenced_blocks("```sh\ncurl -d '{\n```\n")[0])


def test_shown_fields_must_be_present_with_their_stable_values() -> None:
    shown = pattern('{"id": "a", "n": 2, "score": 0.5, "at": "2026-11-22T09:00:00Z", …}')
    assert mismatches(shown, {"id": "a", "n": 2, "score": 0.51, "at": "2030-01-01T00:00:00Z"}) == []
    assert mismatches(shown, {"id": "b", "n": 3, "score": 0.5, "at": "x", "more": 1}) == [
        "output.id: shown 'a', got 'b'",
        "output.n: shown 2, got 3",
    ]
    assert mismatches(shown, {"n": 2, "score": 0.5, "at": ""}) == ["output.id: shown, missing"]


def test_a_score_shown_must_be_near_the_one_served() -> None:
    """A quick start showing 0.0898 where a fresh server answers 0.016 is stale."""
    shown = pattern('{"results": [{"score": 0.0898, "explain": {"bm25": {"score": 0.929}}}]}')
    served = {"results": [{"score": 0.016, "explain": {"bm25": {"score": 0.93}}}]}
    assert mismatches(shown, served) == [
        "output.results[0].score: shown 0.0898, got 0.016: a score as shown is stale"
    ]
    assert mismatches(pattern('{"took_ms": 40.4}'), {"took_ms": 9.1}) == [], "timings vary"


def test_lists_are_as_long_as_shown_unless_an_ellipsis_says_more() -> None:
    assert mismatches(pattern('{"ids": ["a"]}'), {"ids": ["a", "b"]}) == [
        "output.ids: shown 1 items, got 2: ['a', 'b']"
    ]
    assert mismatches(pattern('{"ids": ["a", …]}'), {"ids": ["a", "b"]}) == []
    assert mismatches(pattern('{"ids": ["e4af…", …]}'), {"ids": ["f00"]}) == []
    assert mismatches(pattern('{"ids": ["a", "c", …]}'), {"ids": ["a", "b"]}) != []


def test_volatile_fields_are_checked_for_their_shape_only() -> None:
    shown = pattern(
        '{"actor": "key:6d843254", "runs": 1, "disk_bytes": {"ledger": 1}, "recent": []}'
    )
    actual = {"actor": "local", "runs": 2, "disk_bytes": {"ledger": 9}, "recent": [{}]}
    assert mismatches(shown, actual) == []
    assert mismatches(shown, {**actual, "runs": "2"}) == ["output.runs: shown a number, got '2'"]


def test_what_is_not_json_is_refused() -> None:
    with pytest.raises(ValueError):
        pattern("{'name': 'r1'}")


def test_every_page_with_examples_to_run_is_run() -> None:
    chained = {page for chain in CHAINS.values() for page in chain}
    with_examples = {str(page.relative_to(ROOT)) for page in pages() if runnable(page.read_text())}
    assert with_examples <= chained, (
        f"pages whose examples no chain runs: {sorted(with_examples - chained)}; add them to "
        "tests.readme.CHAINS, or mark their blocks <!-- not run: reason -->"
    )


def test_fenced_blocks_name_their_language_and_shell_blocks_hold_commands() -> None:
    problems = []
    for page in pages():
        blocks = fenced_blocks(page.read_text())
        problems += [f"{page.name}:{b.line}: no language tag" for b in blocks if not b.language]
        problems += [
            f"{page.name}:{b.line}: a shell block without a command"
            for b in runnable(page.read_text())
            if not examples(b)
        ]
    assert not problems, problems
