"""Reading an export file into a namespace: every line checked first, then written.

The file is read twice from where the front end kept it (a file on disk, never the whole
of it in memory, nor a line over the bound whole): a first pass checks every line as a
write is checked and notes the bad ones (``service.application.import_lines``); nothing is
written unless none is bad, or the caller asked to skip them. A second pass writes, a
batch of entries at a time. An import that fails in its second pass
(an engine away) has written some batches: running it again completes it, since an entry
already as the file has it is left alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

import msgspec

from schemas import wire
from service.application import export_lines as lines
from service.application.import_lines import TOO_LONG, BadLines, read_lines
from service.domain.memory import Transfer
from service.domain.model.references import Reference
from service.domain.ports import Catalog, Embedder, InteractionLog, NamespaceEntries, References
from service.errors import FieldError, InvalidInput
from service.settings import ChunkingSettings

BATCH = 256
"""Entries restored (chunked, embedded, written and indexed) together."""

_decoder: msgspec.json.Decoder[wire.ExportLine] = msgspec.json.Decoder(wire.ExportLine)


class Unreadable(Exception):
    """A line that holds no record: the reason."""


def _decoded(raw: bytes | None) -> wire.ExportLine:
    """The record a line holds (None: a line over the bound); Unreadable if none."""
    if raw is None:
        raise Unreadable(TOO_LONG)
    try:
        return _decoder.decode(raw)
    # Nested past msgspec's bound (RecursionError); a string that is not UTF-8.
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError) as exc:
        raise Unreadable(str(exc)) from None


@dataclass
class Checked:
    """What the first pass found."""

    header: wire.Header | None = None
    lines: int = 0
    bad: BadLines = field(default_factory=BadLines)
    ended: bool = False
    renamed: dict[str, str] = field(default_factory=dict)
    """Interactions given ids of their own here, by their ids in the file: those copied
    from another namespace, and those whose id another namespace holds (an interaction's
    id is unique across namespaces)."""
    collections: dict[str, str] = field(default_factory=dict)
    """Collections given ids of their own here, by their ids in the file: those whose id
    another namespace holds."""


@dataclass
class ImportReport:
    namespace: str
    source: str
    lines: int
    imported: wire.Imported
    skipped: list[tuple[int, str]]
    skipped_count: int


@dataclass(eq=False)
class Importer:
    transfer: Transfer
    namespaces: NamespaceEntries
    catalog: Catalog
    interactions: InteractionLog
    references: References
    _: KW_ONLY
    embedder: Embedder | None
    chunking: ChunkingSettings
    namespace: str
    actor: str
    folder_refusal: Callable[[str], str | None]
    """Why no collection may have its folder at a path, as a registration is refused."""

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
            skipped=checked.bad.shown,
            skipped_count=checked.bad.count,
        )

    def check(self, path: Path) -> Checked:
        """The first pass: every line decoded and checked, the bad ones noted."""
        found = Checked()
        ids: set[str] = set()
        collections: set[str] = set()
        interactions: set[str] = set()
        chunking = self.chunking
        for read in read_lines(path):
            number = read.number
            found.lines += 1
            if found.ended:
                found.bad.add(read, "a line after the end line")
                continue
            try:
                line = _decoded(read.raw)
            except Unreadable as exc:
                if number == 1 or found.header is None:
                    raise InvalidInput.one(f"line {number}", f"not a header: {exc}") from None
                found.bad.add(read, str(exc))
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
                problems = lines.entry_problems(line, chunking, header.dimension, self.namespace)
                if line.id in ids:
                    problems.append(f"id: {line.id!r} appears twice in the file")
                ids.add(line.id)
                problem = "; ".join(problems) or None
            elif isinstance(line, wire.DeletedLine):
                if line.id in ids:
                    problem = f"id: {line.id!r} appears twice in the file"
                ids.add(line.id)
            elif isinstance(line, wire.CollectionLine):
                problem = self._collection_problem(line, header)
                if problem is None:
                    collections.add(line.id)
                    if (fresh := self._collection_id(line.id)) != line.id:
                        found.collections[line.id] = fresh
            elif isinstance(line, wire.FileLine):
                if line.collection not in collections:
                    problem = f"collection: no good collection line {line.collection!r} before it"
            elif isinstance(line, wire.InteractionLine):
                # A copy under another name gets ids of its own, and so does an interaction
                # whose id another namespace holds: the import answers alike whether or not
                # one does, and tells nothing of other namespaces.
                if header.namespace != self.namespace or self._held_elsewhere(line.id):
                    found.renamed[line.id] = self._interaction_id(line.id)
                interactions.add(line.id)
            elif isinstance(line, wire.FeedbackLine):
                if line.interaction_id not in interactions:
                    problem = (
                        f"interaction_id: no good interaction line {line.interaction_id!r} "
                        "before it"
                    )
            elif isinstance(line, wire.ReferenceLine):
                unknown = [i for i in line.answers if i not in ids]
                if unknown:
                    problem = f"answers: no entry line {unknown[0]!r} before it"
            elif isinstance(line, wire.End):
                found.ended = True
                if line.lines != found.lines - 1:
                    raise InvalidInput.one(
                        f"line {number}",
                        f"the end line counts {line.lines} lines before it, the file has "
                        f"{found.lines - 1}: lines were lost or added",
                    )
            if problem is not None:
                found.bad.add(read, problem)
        return found

    def _collection_problem(self, line: wire.CollectionLine, header: wire.Header) -> str | None:
        """Why a collection line is not imported. Its folder and files belong to the
        namespace it was exported from, so a copy under another name leaves it out; only
        this namespace's names are looked at."""
        if header.namespace != self.namespace:
            return f"collection {line.name!r} stays in namespace {header.namespace!r}"
        if (why := self.folder_refusal(line.path)) is not None:
            return f"path: {line.path} {why}"
        named = self.catalog.get(self.namespace, line.name)
        if named is not None and named.id != self._collection_id(line.id):
            return f"name: another collection is named {line.name!r} in this namespace"
        return None

    def _held_elsewhere(self, interaction_id: str) -> bool:
        held = self.interactions.get(interaction_id)
        return held is not None and held.namespace != self.namespace

    def _interaction_id(self, interaction_id: str) -> str:
        """The interaction's id here: the first of its copied ids that no other namespace
        holds (the same on every import of the file)."""
        return _fresh(self.namespace, interaction_id, self._held_elsewhere)

    def _collection_id(self, collection_id: str) -> str:
        """The collection's id here: its own unless another namespace holds it, else the
        first of its copied ids that none does (the same on every import of the file)."""

        def elsewhere(candidate: str) -> bool:
            held = next((c for c in self.catalog.all() if c.id == candidate), None)
            return held is not None and held.namespace != self.namespace

        if not elsewhere(collection_id):
            return collection_id
        return _fresh(self.namespace, collection_id, elsewhere)

    def write(self, path: Path, checked: Checked) -> wire.Imported:
        """The second pass: the good lines written in order, entries a batch at a time."""
        assert checked.header is not None
        header = checked.header
        embedder = self.embedder
        reuse = (
            header.vectors
            and embedder is not None
            and header.model == embedder.name
            and header.dimension == embedder.dimension
        )
        counts = {"entries": 0, "unchanged": 0, "embedded": 0}
        counts |= {"collections": 0, "files": 0, "interactions": 0, "feedback": 0, "deleted": 0}
        counts["references"] = 0
        recorded: list[Reference] = []
        batch: list[wire.EntryLine] = []

        def flush() -> None:
            items = [
                lines.archived_entry(b, self.namespace, reuse_vectors=reuse, actor=self.actor)
                for b in batch
            ]
            done = self.transfer.restore_entries(items)
            counts["entries"] += done.written
            counts["unchanged"] += done.unchanged
            counts["embedded"] += done.embedded
            batch.clear()

        asked: list[wire.InteractionLine] = []
        given: list[wire.FeedbackLine] = []
        removed: list[wire.DeletedLine] = []
        for read in read_lines(path):
            if read in checked.bad or read.raw is None:
                continue
            line = _decoder.decode(read.raw)
            if isinstance(line, wire.Header | wire.End):
                continue
            if isinstance(line, wire.EntryLine):
                batch.append(line)
                if len(batch) >= BATCH:
                    flush()
                continue
            if batch:
                flush()
            if isinstance(line, wire.DeletedLine):
                removed.append(line)
                if len(removed) >= BATCH:
                    counts["deleted"] += self._removed(removed)
            elif isinstance(line, wire.CollectionLine):
                line = msgspec.structs.replace(line, id=checked.collections.get(line.id, line.id))
                self.catalog.restore(lines.collection(line, self.namespace))
                counts["collections"] += 1
            elif isinstance(line, wire.FileLine):
                collection = checked.collections.get(line.collection, line.collection)
                self.catalog.set_file(collection, lines.indexed_file(line), line.text or "")
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
            elif isinstance(line, wire.ReferenceLine):
                recorded.append(lines.reference(line, self.namespace))
        if batch:
            flush()
        counts["deleted"] += self._removed(removed)
        counts["interactions"] += self._asked(asked)
        counts["feedback"] += self._given(given)
        counts["references"] += self.references.add_references(recorded)
        return wire.Imported(**counts)

    def _removed(self, removed: list[wire.DeletedLine]) -> int:
        """Write the audit trails of deleted entries (``NamespaceEntries.restore_removed``)."""
        items = [lines.removed_entry(r, self.namespace) for r in removed]
        removed.clear()
        return self.namespaces.restore_removed(items)

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


def _fresh(namespace: str, given: str, elsewhere: Callable[[str], bool]) -> str:
    """The first id drawn from ``given`` for ``namespace`` that no other namespace holds."""
    candidate = copied_id(namespace, given)
    n = 0
    while elsewhere(candidate):
        n += 1
        candidate = copied_id(namespace, f"{given}\0{n}")
    return candidate


def _named(bad: BadLines) -> list[FieldError]:
    shown = [FieldError(f"line {n}", reason) for n, reason in bad.shown]
    if bad.count > len(bad.shown):
        more = bad.count - len(bad.shown)
        shown.append(FieldError("body", f"{more} more bad lines not shown"))
    return shown
