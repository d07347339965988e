"""Reading an export file into a namespace: every line checked first, then written.

The file is read twice from where the front end kept it (a file on disk, never the whole
of it in memory): a first pass checks every line as a write is checked and notes the bad
ones by number; nothing is written unless none is bad, or the caller asked to skip them. A
second pass writes, a batch of entries at a time. An import that fails in its second pass
(an engine away) has written some batches: running it again completes it, since an entry
already as the file has it is left alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from schemas import wire
from service.application import archive_lines as lines
from service.domain.memory import Memory
from service.domain.portability import restore_entries
from service.domain.ports import Catalog, InteractionLog
from service.errors import FieldError, InvalidInput

BATCH = 256
"""Entries restored (chunked, embedded, written and indexed) together."""
SHOWN = 100
"""Bad lines named in a refusal or in the response, at most."""

_decoder = msgspec.json.Decoder(wire.ExportLine)


@dataclass
class Checked:
    """What the first pass found."""

    header: wire.Header | None = None
    lines: int = 0
    bad: dict[int, str] = field(default_factory=dict)
    """Line number: reason."""
    ended: bool = False
    renamed: dict[str, str] = field(default_factory=dict)
    """Interactions copied from another namespace: their ids here, by their ids in the
    file (an interaction's id is unique across namespaces)."""


@dataclass
class ImportReport:
    namespace: str
    source: str
    lines: int
    imported: wire.Imported
    skipped: list[tuple[int, str]]
    skipped_count: int


def numbered(path: Path) -> Iterator[tuple[int, bytes]]:
    """The file's lines with their 1-based numbers, blank lines left out."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if raw.strip():
                yield number, raw


class Importer:
    def __init__(
        self,
        memory: Memory,
        catalog: Catalog,
        interactions: InteractionLog,
        *,
        namespace: str,
        actor: str,
    ) -> None:
        self.memory = memory
        self.catalog = catalog
        self.interactions = interactions
        self.namespace = namespace
        self.actor = actor

    def run(self, path: Path, *, skip_bad_lines: bool) -> ImportReport:
        checked = self.check(path)
        if not checked.ended or checked.header is None:
            raise InvalidInput.one(
                "body", "the file ends without its end line: it was cut short, or is no export"
            )
        if checked.bad and not skip_bad_lines:
            raise InvalidInput(_named(checked.bad))
        imported = self.write(path, checked)
        return ImportReport(
            namespace=self.namespace,
            source=checked.header.namespace,
            lines=checked.lines,
            imported=imported,
            skipped=sorted(checked.bad.items())[:SHOWN],
            skipped_count=len(checked.bad),
        )

    def check(self, path: Path) -> Checked:
        """The first pass: every line decoded and checked, the bad ones noted."""
        found = Checked()
        ids: set[str] = set()
        collections: set[str] = set()
        interactions: set[str] = set()
        chunking = self.memory.chunking
        for number, raw in numbered(path):
            found.lines += 1
            if found.ended:
                found.bad[number] = "a line after the end line"
                continue
            try:
                line = _decoder.decode(raw)
            except msgspec.DecodeError as exc:
                if number == 1 or found.header is None:
                    raise InvalidInput.one(f"line {number}", f"not a header: {exc}") from None
                found.bad[number] = str(exc)
                continue
            problem = None
            if found.header is None:
                if not isinstance(line, wire.Header):
                    raise InvalidInput.one(f"line {number}", "the first line must be the header")
                if line.version > wire.FORMAT_VERSION:
                    raise InvalidInput.one(
                        f"line {number}",
                        f"format version {line.version} is newer than this release reads "
                        f"({wire.FORMAT_VERSION})",
                    )
                found.header = line
                continue
            header = found.header
            if isinstance(line, wire.Header):
                problem = "a second header"
            elif isinstance(line, wire.EntryLine):
                problems = lines.entry_problems(line, chunking, header.dimension)
                if line.id in ids:
                    problems.append(f"id: {line.id!r} appears twice in the file")
                ids.add(line.id)
                problem = "; ".join(problems) or None
            elif isinstance(line, wire.CollectionLine):
                problem = self._collection_problem(line)
                if problem is None:
                    collections.add(line.id)
            elif isinstance(line, wire.FileLine):
                if line.collection not in collections:
                    problem = f"collection: no good collection line {line.collection!r} before it"
            elif isinstance(line, wire.InteractionLine):
                held = self.interactions.get(line.id)
                if held is not None and held.namespace != self.namespace:
                    if header.namespace == self.namespace:
                        problem = f"id: interaction {line.id!r} belongs to another namespace"
                    else:  # a copy under another name: the copy's interactions get ids of their own
                        found.renamed[line.id] = copied_id(self.namespace, line.id)
                        interactions.add(line.id)
                else:
                    interactions.add(line.id)
            elif isinstance(line, wire.FeedbackLine):
                if line.interaction_id not in interactions:
                    problem = (
                        f"interaction_id: no good interaction line {line.interaction_id!r} "
                        "before it"
                    )
            elif isinstance(line, wire.End):
                found.ended = True
                if line.lines != found.lines - 1:
                    raise InvalidInput.one(
                        f"line {number}",
                        f"the end line counts {line.lines} lines before it, the file has "
                        f"{found.lines - 1}: lines were lost or added",
                    )
            if problem is not None:
                found.bad[number] = problem
        return found

    def _collection_problem(self, line: wire.CollectionLine) -> str | None:
        named = self.catalog.get(line.name)
        if named is not None and named.namespace != self.namespace:
            return f"name: collection {line.name!r} belongs to another namespace"
        if named is not None and named.id != line.id:
            return f"name: another collection is named {line.name!r} in this namespace"
        same_id = next((c for c in self.catalog.all() if c.id == line.id), None)
        if same_id is not None and same_id.namespace != self.namespace:
            return f"id: collection {line.id!r} belongs to another namespace"
        return None

    def write(self, path: Path, checked: Checked) -> wire.Imported:
        """The second pass: the good lines written in order, entries a batch at a time."""
        assert checked.header is not None
        header = checked.header
        embedder = self.memory.embedder
        reuse = (
            header.vectors
            and embedder is not None
            and header.model == embedder.name
            and header.dimension == embedder.dimension
        )
        counts = {"entries": 0, "unchanged": 0, "embedded": 0}
        counts |= {"collections": 0, "files": 0, "interactions": 0, "feedback": 0}
        batch: list[wire.EntryLine] = []

        def flush() -> None:
            items = [
                lines.archived_entry(b, self.namespace, reuse_vectors=reuse, actor=self.actor)
                for b in batch
            ]
            done = restore_entries(self.memory, items)
            counts["entries"] += done.written
            counts["unchanged"] += done.unchanged
            counts["embedded"] += done.embedded
            batch.clear()

        asked: list[wire.InteractionLine] = []
        given: list[wire.FeedbackLine] = []
        for number, raw in numbered(path):
            if number in checked.bad:
                continue
            line = _decoder.decode(raw)
            if isinstance(line, wire.Header | wire.End):
                continue
            if isinstance(line, wire.EntryLine):
                batch.append(line)
                if len(batch) >= BATCH:
                    flush()
                continue
            if batch:
                flush()
            if isinstance(line, wire.CollectionLine):
                self.catalog.restore(lines.collection(line, self.namespace))
                counts["collections"] += 1
            elif isinstance(line, wire.FileLine):
                self.catalog.set_file(line.collection, lines.indexed_file(line), line.text or "")
                counts["files"] += 1
            elif isinstance(line, wire.InteractionLine):
                if line.id in checked.renamed:
                    line = msgspec.structs.replace(line, id=checked.renamed[line.id])
                asked.append(line)
                if len(asked) >= BATCH:
                    counts["interactions"] += self._asked(asked)
            elif isinstance(line, wire.FeedbackLine):
                if line.interaction_id in checked.renamed:
                    renamed = checked.renamed[line.interaction_id]
                    line = msgspec.structs.replace(line, interaction_id=renamed)
                given.append(line)
                if len(given) >= BATCH:
                    counts["interactions"] += self._asked(asked)
                    counts["feedback"] += self._given(given)
        if batch:
            flush()
        counts["interactions"] += self._asked(asked)
        counts["feedback"] += self._given(given)
        return wire.Imported(**counts)

    def _given(self, given: list[wire.FeedbackLine]) -> int:
        added = self.interactions.restore([], [lines.feedback(f) for f in given])
        given.clear()
        return added

    def _asked(self, asked: list[wire.InteractionLine]) -> int:
        added = self.interactions.restore([lines.interaction(i, self.namespace) for i in asked], [])
        asked.clear()
        return added


def copied_id(namespace: str, interaction_id: str) -> str:
    """The id of an interaction copied into ``namespace``: the same on every import of the
    same file, so importing it twice changes nothing."""
    return hashlib.sha256(f"{namespace}\0{interaction_id}".encode()).hexdigest()[:32]


def _named(bad: dict[int, str]) -> list[FieldError]:
    shown = [FieldError(f"line {n}", reason) for n, reason in sorted(bad.items())[:SHOWN]]
    if len(bad) > SHOWN:
        shown.append(FieldError("body", f"{len(bad) - SHOWN} more bad lines not shown"))
    return shown
