"""Digests of archived tier E entries: what an agent needs to find and cite a day's work
once its log lines are archived (or deleted).

One digest per namespace, UTC day and group: the entries' thread, else their chain type,
else their speaker (entries with none of them share the day's digest). A digest is an entry
of kind ``digest`` in tier E (found by keywords, never embedded) holding the time span, the
counts by speaker, role and tag, the day's most characteristic terms and the most
informative lines verbatim, each with the id of the entry it came from.

A digest is searched line by line: its passages (``passages``) are its head (span, counts
and terms) and each quoted line, stored as its chunks and indexed by BM25 one document each,
so a line is scored as the line it is, not diluted by the other nineteen, and the hit it
makes is the digest, with that line as its passage.

Everything here is a pure function of the originals: the same originals give the same
digest, whatever order they come in and however many runs archived them, so rebuilding is
idempotent and its id (namespace, day, group) is stable.

Size bound: at most ``MAX_LINES`` lines of at most ``LINE_CHARS`` characters,
``MAX_TERMS`` terms and ``MAX_COUNTED`` names per count, so the text never exceeds
``MAX_TEXT_CHARS`` (20,000 characters) and the metadata about 12 KB of JSON, however many
entries the day holds and whatever they say.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from service.domain.aging.tiers import DAY
from service.domain.entries import DIGEST, Entry
from service.domain.text import STOPWORDS

MAX_LINES = 20
"""Lines quoted verbatim per digest, the day's first and last included."""
LINE_CHARS = 300
"""A quoted line is cut at this many characters."""
MAX_TERMS = 40
"""Characteristic terms listed per digest."""
MAX_COUNTED = 10
"""Speakers, roles and tags counted by name per digest; the rest are summed as others."""
LABEL_CHARS = 200
"""A name (speaker, role, tag, group) is cut at this many characters (the longest a label
may be written)..."""
QUOTED_LABEL_CHARS = 64
"""...and at this many before a quoted line."""
ID_CHARS = 128
MAX_TEXT_CHARS = 20_000
"""No digest's text is longer: the bound of what the limits above let it hold."""
ID_PREFIX = "digest:"
"""Digest ids start so; events may not be written with such ids."""

_QUOTED = re.compile(r"\[\d\d:\d\d:\d\d ")
"""How a quoted line starts (``[HH:MM:SS``); no line of the head does."""
_WORD = re.compile(r"[^\W_][\w.-]*[^\W_]|[^\W_]", re.UNICODE)
_ERROR = re.compile(
    r"\b(error|errors|exception|traceback|fail|failed|failure|failing|fatal|panic|refused|"
    r"denied|timeout|timed out|crash(ed)?|abort(ed)?|killed|oom|rollback|rolled back)\b|"
    r"exited with code [1-9]",
    re.IGNORECASE,
)
_OUTCOME = re.compile(
    r"\b(deployed|merged|released|applied|passed|succeeded|success|completed|finished|fixed|"
    r"resolved|done|created|migrated|decided|shipped|approved|ready)\b",
    re.IGNORECASE,
)
ERROR_WEIGHT = 1.0
OUTCOME_WEIGHT = 0.5
"""A line's new terms weigh this much more when it reports an error or an outcome."""


@dataclass(frozen=True, order=True)
class Group:
    """Where an archived entry's digest is: its namespace, UTC day and group."""

    namespace: str
    day: str
    """``YYYY-MM-DD``, UTC."""
    by: str
    """``thread``, ``chain_type``, ``speaker`` or ``day`` (none of them)."""
    value: str


def group_of(entry: Entry) -> Group:
    day = datetime.fromtimestamp(entry.timestamp, UTC).strftime("%Y-%m-%d")
    for by, value in (
        ("thread", entry.thread),
        ("chain_type", entry.chain_type),
        ("speaker", entry.speaker),
    ):
        if value:
            return Group(entry.namespace, day, by, value)
    return Group(entry.namespace, day, "day", "")


def digest_id(group: Group) -> str:
    """The stable id of a group's digest (the group's value hashed: any text fits)."""
    if group.by == "day":
        return f"{ID_PREFIX}{group.day}:day"
    hashed = hashlib.sha256(group.value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{ID_PREFIX}{group.day}:{group.by}:{hashed}"


def day_bounds(day: str) -> tuple[float, float]:
    """The UTC day ``YYYY-MM-DD`` as ``[start, end)`` in epoch seconds."""
    start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
    return start, start + DAY


def is_digest(entry: Entry) -> bool:
    return entry.kind == DIGEST


def summarized(digest: Entry) -> int:
    """How many archived entries ``digest`` summarises (0 for any other entry)."""
    meta = digest.metadata.get("digest")
    count = meta.get("entries") if isinstance(meta, Mapping) else None
    return count if isinstance(count, int) else 0


def build_day(originals: Iterable[Entry]) -> dict[Group, Entry]:
    """The digest of every group among ``originals`` (archived entries of one namespace and
    day; digests among them are ignored), each keyed by its group."""
    kept = sorted((e for e in originals if not is_digest(e)), key=_order)
    groups: dict[Group, list[Entry]] = {}
    for entry in kept:
        groups.setdefault(group_of(entry), []).append(entry)
    if len({(g.namespace, g.day) for g in groups}) > 1:
        raise ValueError("build_day takes the entries of one namespace and day")
    vocabulary = Vocabulary.of(kept)
    return {group: _digest(group, members, vocabulary) for group, members in sorted(groups.items())}


def passages(text: str) -> list[str]:
    """A digest's text as it is searched: its head (the lines before the first quoted one)
    then each quoted line, in order; the text of ``_digest`` is their lines joined."""
    lines = text.split("\n")
    quoted = next((n for n, line in enumerate(lines) if _QUOTED.match(line)), len(lines))
    head = "\n".join(lines[:quoted])
    return ([head] if head.strip() else []) + [line for line in lines[quoted:] if line.strip()]


def _digest(group: Group, entries: Sequence[Entry], vocabulary: Vocabulary) -> Entry:
    first, last = entries[0], entries[-1]
    lines = vocabulary.select_lines(entries, MAX_LINES)
    top_terms = vocabulary.characteristic_terms(entries, MAX_TERMS)
    speakers = _counted(e.speaker for e in entries)
    roles = _counted(e.role for e in entries)
    tags = _counted(t for e in entries for t in e.tags)
    label = "" if group.by == "day" else f", {group.by.replace('_', ' ')} {_label(group.value)}"
    header = (
        f"Digest of {group.day} (UTC){label}: {len(entries)} archived "
        f"{'entry' if len(entries) == 1 else 'entries'} from {_clock(first.timestamp)} "
        f"to {_clock(last.timestamp)}."
    )
    parts = [header]
    for name, counts in (("Speakers", speakers), ("Roles", roles), ("Tags", tags)):
        if counts.named:
            parts.append(f"{name}: {counts}.")
    if top_terms:
        parts.append("Terms: " + " ".join(top_terms) + ".")
    parts.extend(_quoted(e) for e in lines)
    text = "\n".join(parts)
    return Entry(
        id=digest_id(group),
        namespace=group.namespace,
        tier="E",
        text=text,
        timestamp=last.timestamp,
        speaker=_unanimous(e.speaker for e in entries),
        role=_unanimous(e.role for e in entries),
        chain_type=_unanimous(e.chain_type for e in entries),
        tags=tuple(tags.named),
        metadata={
            "digest": {
                "day": group.day,
                "group": {"by": group.by, "value": _label(group.value)},
                "first": _iso(first.timestamp),
                "last": _iso(last.timestamp),
                "entries": len(entries),
                "speakers": speakers.named,
                "roles": roles.named,
                "tags": tags.named,
                "others": {
                    name: c.others
                    for name, c in (("speakers", speakers), ("roles", roles), ("tags", tags))
                    if c.others
                },
                "terms": top_terms,
                "sources": [e.id for e in lines],
            }
        },
        kind=DIGEST,
    )


@dataclass(frozen=True)
class Vocabulary:
    """The terms of a day's entries: each entry's (by key), and how rare each term is in
    the day (inverse day frequency, over entries)."""

    terms_of: Mapping[str, frozenset[str]]
    idf: Mapping[str, float]

    @classmethod
    def of(cls, entries: Sequence[Entry]) -> Vocabulary:
        terms = [_terms(e.text) for e in entries]
        frequency: Counter[str] = Counter(t for found in terms for t in found)
        return cls(
            {e.key: found for e, found in zip(entries, terms, strict=True)},
            {t: math.log(1 + len(entries) / n) for t, n in frequency.items()},
        )

    def select_lines(self, entries: Sequence[Entry], limit: int) -> list[Entry]:
        """The lines a digest quotes, in time order: the first and the last, then greedily
        the line whose terms not yet quoted weigh most, an error or an outcome weighing
        more. The digest so holds as much of the group's distinct vocabulary as its lines
        allow, and no repeated line. Ties go to the earlier entry."""
        if len(entries) <= limit:
            return list(entries)
        terms_of = self.terms_of
        chosen = {0, len(entries) - 1}
        covered = set(terms_of[entries[0].key]) | terms_of[entries[-1].key]
        boost = [
            1 + ERROR_WEIGHT * _has(_ERROR, e) + OUTCOME_WEIGHT * _has(_OUTCOME, e) for e in entries
        ]
        while len(chosen) < limit:
            best, best_gain = -1, 0.0
            for n, entry in enumerate(entries):
                if n in chosen:
                    continue
                gain = boost[n] * sum(self.idf[t] for t in terms_of[entry.key] - covered)
                if gain > best_gain:
                    best, best_gain = n, gain
            if best < 0:  # nothing new left to say
                break
            chosen.add(best)
            covered |= terms_of[entries[best].key]
        return [entries[n] for n in sorted(chosen)]

    def characteristic_terms(self, entries: Sequence[Entry], limit: int) -> list[str]:
        """The group's terms weighed by how often its entries use them and how rare they are
        in the day (tf-idf over entries), most characteristic first, ties alphabetical."""
        used: Counter[str] = Counter(t for e in entries for t in self.terms_of[e.key])
        ranked = sorted(used, key=lambda t: (-used[t] * self.idf[t], t))
        return ranked[:limit]


def _terms(text: str) -> frozenset[str]:
    """The meaningful terms of a line: words with a letter, of 3 to 40 characters, not a
    function word, lower case."""
    return frozenset(
        w
        for w in (m.lower() for m in _WORD.findall(text))
        if 3 <= len(w) <= 40 and w not in STOPWORDS and any(c.isalpha() for c in w)
    )


def _has(pattern: re.Pattern[str], entry: Entry) -> bool:
    return pattern.search(entry.text) is not None


@dataclass(frozen=True)
class Counts:
    """The most frequent names with their counts (ties alphabetical), and the rest summed."""

    named: dict[str, int]
    others: int = 0

    def __str__(self) -> str:
        shown = ", ".join(f"{k} {n}" for k, n in self.named.items())
        return shown + (f", others {self.others}" if self.others else "")


def _counted(values: Iterable[str | None]) -> Counts:
    counts = Counter(_label(v) for v in values if v)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return Counts(dict(ranked[:MAX_COUNTED]), sum(n for _, n in ranked[MAX_COUNTED:]))


def _unanimous(values: Iterable[str | None]) -> str | None:
    found = set(values)
    return found.pop() if len(found) == 1 else None


def _quoted(entry: Entry) -> str:
    """A quoted line: ``[time speaker id ID] text``."""
    who = f"{_label(entry.speaker)[:QUOTED_LABEL_CHARS]} " if entry.speaker else ""
    return f"[{_clock(entry.timestamp)} {who}id {entry.id[:ID_CHARS]}] {_line(entry.text)}"


def _line(text: str) -> str:
    """``text`` on one line, control and format characters out, cut at ``LINE_CHARS``."""
    flat = _flat(text[: LINE_CHARS * 8])  # what is cleaned is bounded too
    return flat if len(flat) <= LINE_CHARS else flat[: LINE_CHARS - 1] + "…"


def _label(value: str | None) -> str:
    return _flat((value or "")[: LABEL_CHARS * 8])[:LABEL_CHARS]


def _flat(text: str) -> str:
    """Unicode's control, format (bidirectional overrides), separator-line and unassigned
    characters replaced by spaces, runs of spaces by one."""
    return " ".join("".join(" " if unicodedata.category(c)[0] in "CZ" else c for c in text).split())


def _order(entry: Entry) -> tuple[float, str]:
    return (entry.timestamp, entry.id)


def _clock(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%H:%M:%S")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat().replace("+00:00", "Z")
