"""The shell examples of the README and the docs as data: their fenced blocks, the commands
in each, and the output shown after a command, read as a pattern a real output is checked
against; and which pages hold examples to run, in which order.

A block tagged ``sh``, ``bash``, ``shell`` or ``console`` is an example to run, unless the
last line before its fence is ``<!-- not run: reason -->``. The other languages are run or
checked elsewhere: ``python`` in ``tests/e2e/test_python_examples.py``, ``ts`` in
``tests/e2e/test_typescript_package.py``, ``json`` in ``tests/api/test_doc_json.py``. In a
block, a command may span lines (a trailing backslash, an open quote); the comment lines
after it may show its output: ``# 201 {...}`` or ``# {...}``, JSON over one or more lines,
the status first when it is not a success. In shown JSON ``…`` stands for what is left out:
more fields of an object (``{"id": "a", …}``), more items of a list (``[{…}, …]``), any
value (``"at": …``) or any string (``"e4af99…"``). Everything else in the comments is prose.
Heredocs are not read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SHELL = frozenset({"sh", "bash", "shell", "console"})
ROOT = Path(__file__).resolve().parents[1]

CHAINS: dict[str, tuple[str, ...]] = {
    "readme": ("README.md",),
    "docs": (
        "docs/guide/quickstart.md",
        "docs/guide/retrieve-context.md",
        "docs/guide/revisions.md",
        "docs/guide/collections.md",
        "docs/operations/backups.md",
        "docs/guide/tiers.md",
        "docs/guide/cli.md",
    ),
}
"""The pages whose examples are run, each chain against a server of its own, its pages in
order in one shell: a page's examples may use what the pages before it stored (the guide's
pages go on from the quick start's events, and the counts the lifecycle page shows are those
of every page before it)."""
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
OUTPUT = re.compile(r"^(?:(?P<status>\d{3}) )?(?P<json>[\[{].*)$")
TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
ELLIPSES = ("…", "...")
_JSON = json.JSONDecoder()

VOLATILE = frozenset(
    {
        "actor",  # key:<fingerprint> with keys, local without
        "disk_bytes",
        "read_time",  # the model work of reads since the process started
        "tokens_read_time",
        "replica",  # the host's name and port
        "last_replica",
        "runs",  # a scheduled turn of a job may come between two requests
        "last_started",
        "last_finished",
        "recent",
        "state",  # a rebuild runs in the background
        "done",
    }
)
"""Fields whose values differ from run to run: checked for their shape only. Beside them,
numbers with a fraction (timings, shares), times and strings holding ``…`` are too, but for
scores."""
SCORES = frozenset({"score"})
"""Fields whose numbers with a fraction are checked to be near the value shown (``NEAR``): a
fresh server scores the examples alike from run to run, so a score shown where the service
now answers another is stale."""
NEAR = 0.05
"""How far a score may be from the one shown, relative to it (or 0.005, when more)."""


@dataclass(frozen=True)
class Block:
    line: int
    """The line of the opening fence, counted from 1."""
    language: str
    text: str
    not_run: str | None
    """Why the block is not run, from the marker before it; None: it is run."""


@dataclass
class Example:
    line: int
    command: str
    comments: list[str] = field(default_factory=list)

    @property
    def shown(self) -> tuple[int | None, str] | None:
        """The status and the JSON shown after the command, if any."""
        for start, comment in enumerate(self.comments):
            match = OUTPUT.match(comment)
            if match is None:
                continue
            text = match["json"]
            for more in self.comments[start + 1 :]:
                if _end(text) is not None:
                    break
                text += "\n" + more
            status = match["status"]
            # What follows the value on its last line is a note, as in "{...}   (on stderr)".
            return (int(status) if status else None), text[: _end(text)]
        return None


def pages() -> list[Path]:
    """The README and every page of the docs but the benchmarks, whose commands and printed
    tables are records of runs, not examples."""
    docs = sorted(
        p
        for p in (ROOT / "docs").rglob("*.md")
        if not p.relative_to(ROOT / "docs").parts[0].startswith("benchmarks")
    )
    return [ROOT / "README.md", *docs]


def runnable(markdown: str) -> list[Block]:
    """The shell blocks of ``markdown`` not marked as not run."""
    return [b for b in fenced_blocks(markdown) if b.language in SHELL and b.not_run is None]


def fenced_blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown``, in order, with its language and marker."""
    blocks = []
    lines = markdown.splitlines()
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if opening is None:
            number += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        body = []
        end = number + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end][indent:] if lines[end][:indent].isspace() else lines[end])
            end += 1
        before = next((text for text in reversed(lines[:number]) if text.strip()), "")
        marker = NOT_RUN.match(before)
        language = opening["info"].strip().split(" ")[0].lower()
        blocks.append(Block(number + 1, language, "\n".join(body), marker and marker["reason"]))
        number = end + 1
    return blocks


def examples(block: Block) -> list[Example]:
    """The commands of a shell block, each with the comment lines that follow it."""
    found: list[Example] = []
    pending: list[str] = []
    quote: str | None = None
    for offset, line in enumerate(block.text.splitlines(), start=block.line + 1):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            if found and stripped:
                found[-1].comments.append(stripped[1:].removeprefix(" "))
            continue
        if not pending:
            start = offset
        pending.append(line)
        quote, continued = _scan(line, quote)
        if quote is None and not continued:
            found.append(Example(start, "\n".join(pending)))
            pending = []
    if pending:
        raise ValueError(f"line {block.line}: a command is not closed")
    return found


def _scan(line: str, quote: str | None) -> tuple[str | None, bool]:
    """The quote still open after ``line``, and whether the command goes on (a trailing
    backslash outside quotes)."""
    index = 0
    while index < len(line):
        char = line[index]
        if quote == "'":
            quote = None if char == "'" else quote
        elif quote == '"':
            if char == "\\":
                index += 1
            elif char == '"':
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "\\":
            if index == len(line) - 1:
                return None, True
            index += 1
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            break
        index += 1
    return quote, False


def _end(text: str) -> int | None:
    """Where the bracket ``text`` opens with is closed (strings skipped); None while open."""
    depth, index = 0, 0
    while index < len(text):
        char = text[index]
        if char == '"':
            try:
                index = _string(text, index)[1]
            except ValueError:
                return None
            continue
        depth += (char in "[{") - (char in "]}")
        index += 1
        if depth == 0:
            return index
    return None


def _string(text: str, index: int) -> tuple[str, int]:
    """The JSON string whose quote is at ``index``, and where it ends; ValueError when none."""
    value, end = _JSON.raw_decode(text, index)
    if not isinstance(value, str):
        raise ValueError(f"expected a string at {text[index:][:20]!r}")
    return value, end


# The shown output as a pattern.


class Anything:
    """``…`` in place of a value."""


ANYTHING = Anything()


@dataclass(frozen=True)
class Fields:
    shown: dict[str, Pattern]
    more: bool


@dataclass(frozen=True)
class Items:
    shown: list[Pattern]
    more: bool


Pattern = Fields | Items | Anything | str | int | float | bool | None


def pattern(text: str) -> Pattern:
    """Shown JSON, ``…`` included, read as a pattern; ValueError when it is not."""
    reader = _Reader(text)
    value = reader.value()
    reader.skip()
    if reader.index != len(text):
        raise ValueError(f"unexpected {text[reader.index :][:20]!r} after the value")
    return value


class _Reader:
    LITERALS: dict[str, Pattern] = {"true": True, "false": False, "null": None}
    NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?")

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0

    def skip(self) -> None:
        while self.index < len(self.text) and self.text[self.index].isspace():
            self.index += 1

    def ellipsis(self) -> bool:
        self.skip()
        for mark in ELLIPSES:
            if self.text.startswith(mark, self.index):
                self.index += len(mark)
                return True
        return False

    def expect(self, char: str) -> None:
        self.skip()
        if not self.text.startswith(char, self.index):
            raise ValueError(f"expected {char!r} at {self.text[self.index :][:20]!r}")
        self.index += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.index : self.index + 1]

    def value(self) -> Pattern:
        if self.ellipsis():
            return ANYTHING
        char = self.peek()
        if char == "{":
            return self.fields()
        if char == "[":
            return self.items()
        if char == '"':
            text, self.index = _string(self.text, self.index)
            return text
        for word, literal in self.LITERALS.items():
            if self.text.startswith(word, self.index):
                self.index += len(word)
                return literal
        number = self.NUMBER.match(self.text, self.index)
        if number is None:
            raise ValueError(f"no value at {self.text[self.index :][:20]!r}")
        self.index = number.end()
        parsed: int | float = json.loads(number.group())
        return parsed

    def fields(self) -> Fields:
        self.expect("{")
        shown: dict[str, Pattern] = {}
        more = False
        while self.peek() != "}":
            if self.ellipsis():
                more = True
            else:
                self.skip()
                name, self.index = _string(self.text, self.index)
                self.expect(":")
                shown[name] = self.value()
            if self.peek() != ",":
                break
            self.expect(",")
        self.expect("}")
        return Fields(shown, more)

    def items(self) -> Items:
        self.expect("[")
        shown: list[Pattern] = []
        more = False
        while self.peek() != "]":
            if self.ellipsis():
                more = True
            else:
                shown.append(self.value())
            if self.peek() != ",":
                break
            self.expect(",")
        self.expect("]")
        return Items(shown, more)


def mismatches(shown: Pattern, actual: object, path: str = "", loose: bool = False) -> list[str]:
    """How ``actual`` differs from what the README shows: every shown field present, lists
    as long as shown (at least, with ``…``), values equal where they are stable."""
    return list(_mismatches(shown, actual, path or "output", loose))


def _mismatches(shown: Pattern, actual: object, path: str, loose: bool) -> Iterator[str]:
    if isinstance(shown, Anything):
        return
    if isinstance(shown, Fields):
        if not isinstance(actual, dict):
            yield f"{path}: shown an object, got {actual!r}"
            return
        for name, value in shown.shown.items():
            if name not in actual:
                yield f"{path}.{name}: shown, missing"
            else:
                yield from _mismatches(
                    value, actual[name], f"{path}.{name}", loose or name in VOLATILE
                )
    elif isinstance(shown, Items):
        if not isinstance(actual, list):
            yield f"{path}: shown a list, got {actual!r}"
        elif shown.more or loose:
            yield from _subsequence(shown.shown, actual, path, loose)
        elif len(actual) != len(shown.shown):
            yield f"{path}: shown {len(shown.shown)} items, got {len(actual)}: {actual!r}"
        else:
            for index, (item, got) in enumerate(zip(shown.shown, actual, strict=True)):
                yield from _mismatches(item, got, f"{path}[{index}]", loose)
    elif isinstance(shown, bool) or shown is None:
        if not loose and actual is not shown:
            yield f"{path}: shown {json.dumps(shown)}, got {actual!r}"
    elif isinstance(shown, int | float):
        if not isinstance(actual, int | float) or isinstance(actual, bool):
            yield f"{path}: shown a number, got {actual!r}"
        elif isinstance(shown, int) and not loose and actual != shown:
            yield f"{path}: shown {shown}, got {actual!r}"
        elif not loose and path.rpartition(".")[2] in SCORES and not _near(shown, actual):
            yield f"{path}: shown {shown}, got {actual!r}: a score as shown is stale"
    elif not isinstance(actual, str):
        yield f"{path}: shown a string, got {actual!r}"
    elif actual != shown and not (loose or any(m in shown for m in ELLIPSES) or TIME.match(shown)):
        yield f"{path}: shown {shown!r}, got {actual!r}"


def _near(shown: float, actual: float) -> bool:
    return abs(actual - shown) <= max(NEAR * abs(shown), 0.005)


def _subsequence(
    shown: list[Pattern], actual: list[object], path: str, loose: bool
) -> Iterator[str]:
    """Each shown item matched by a later item of ``actual`` than the one before it."""
    start = 0
    for item in shown:
        for index in range(start, len(actual)):
            if not mismatches(item, actual[index], path, loose):
                start = index + 1
                break
        else:
            yield f"{path}: no item after [{start - 1}] matches {item!r}: {actual!r}"
            return
