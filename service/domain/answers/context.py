"""An agent's context block: the entries an answer ranks first, each cited, within a budget
of model tokens.

Entries are kept most relevant first and shown in the answer's order under their tiers'
headings (each tier headed once, where its best entry comes), so a line cites only the
entry's id, day and speaker; one another entry replaces is never shown, and one that
replaces others says so; near-repeats are folded into the most relevant; a long entry is cut
to whole sentences around its best passage. The most relevant entry is given up to half of
the budget, and the others share the rest so that every one shown gets a fair part of it (no
entry is cut below ``MIN_EXCERPT`` tokens to make room: the least relevant are left out
first); reasoning patterns follow when whole ones still fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from service.domain.answers.excerpts import excerpt, more_words, one_line
from service.domain.answers.folding import Folded, fold
from service.domain.entries import Tier
from service.domain.search.snippets import query_terms
from service.domain.tokens import TokenCounter

Style = Literal["markdown", "text"]
MIN_EXCERPT = 6
"""Fewest tokens of an entry's text worth showing when it must be cut: the words around the
question's first term in it, at the least."""
LEAD_SHARE = 0.5
"""Most of the room the most relevant entry is given before the others share the rest: the
entry likeliest to answer is read whole or nearly. Shared fairly alone, a budget of 512
tokens cut an ADR of adr-dev to a phrase of ten tokens beside thirteen others."""
NOTHING = "Nothing relevant in memory."
HEADINGS: dict[Style, tuple[str, str, str]] = {
    # (memory heading, patterns heading, bullet)
    "markdown": ("### Memory", "### Reasoning patterns", "- "),
    "text": ("Memory:", "Reasoning patterns:", ""),
}
SECTIONS: dict[Tier, str] = {"A": "Decisions and facts", "C": "Discussions", "E": "Logs"}
"""What each tier's entries are headed, in place of a tier on every line."""
_SECTION_FORMAT: dict[Style, str] = {"markdown": "### {}", "text": "{}:"}
_FIRST_DAY, _LAST_DAY = -62_135_596_800, 253_402_214_399
"""0001-01-01 and 9999-12-31 (UTC), the dates a citation can show."""


@dataclass(frozen=True)
class Source:
    """An entry offered to the block, as ranked."""

    id: str
    tier: Tier
    timestamp: float
    speaker: str | None
    text: str
    replaces: tuple[str, ...] = ()
    """Ids of the entries it superseded."""
    score: float = 0.0
    """The answer's score, by which it was ranked."""
    type: str | None = None


@dataclass(frozen=True)
class Included:
    """An entry as the block shows it."""

    source: Source
    citation: str
    text: str
    """Its text as shown: whole, or cut (``…`` where text is left out)."""
    cut: bool
    folded: tuple[str, ...] = ()
    """Ids of near-repeats it stands for."""


@dataclass(frozen=True)
class Block:
    text: str
    tokens: int
    entries: list[Included]
    patterns: list[Included]
    left_out: list[str]
    """Ids of entries offered but not shown (no room left), best ranked first, with the
    near-repeats of each."""
    nothing_relevant: bool
    """No entry was offered: the block says so."""


def citation(source: Source, year: int | None = None) -> str:
    """``[id date speaker]`` (``[db-2 2 Mar 2026 alice]``; no speaker part when there is
    none): the tier is the heading of the entry's section. ``year``: the year the headings
    say, left out of the date when it is the entry's (``[db-2 2 Mar alice]``)."""
    day = _day(source)
    date = f"{day.day} {day:%b}" + ("" if day.year == year else f" {day.year}")
    parts = [source.id, date, *[source.speaker or ""]]
    return "[" + " ".join(p for p in parts if p) + "]"


def section(tier: Tier, style: Style, year: int | None = None) -> str:
    """The heading of a tier's entries, with the year of every entry when they share one."""
    name = SECTIONS[tier] + ("" if year is None else f" ({year})")
    return _SECTION_FORMAT[style].format(name)


def _day(source: Source) -> datetime:
    return datetime.fromtimestamp(min(max(source.timestamp, _FIRST_DAY), _LAST_DAY), UTC)


def _one_year(sources: Sequence[Source]) -> int | None:
    """The year of every one of ``sources`` when they share one: the headings say it once."""
    years = {_day(s).year for s in sources}
    return years.pop() if len(years) == 1 else None


def assemble(
    question: str,
    entries: Sequence[Source],
    patterns: Sequence[Source],
    counter: TokenCounter,
    max_tokens: int,
    style: Style = "markdown",
) -> Block:
    """The block of ``entries`` and ``patterns`` for ``question``, never more than
    ``max_tokens`` tokens as ``counter`` counts them. ``entries`` come in the order they are
    kept (the last left out first when the budget cannot hold them all); those kept are
    shown best ``score`` first, in that order among equal scores."""
    heading, _, bullet = HEADINGS[style]
    replaced = {r for s in entries for r in s.replaces}
    groups = fold([s for s in entries if s.id not in replaced], lambda s: s.text)
    if not groups:
        return _nothing(heading, counter, max_tokens)
    terms = query_terms(question)
    year = _one_year([g.kept for g in groups])
    cites = [citation(g.kept, year) for g in groups]
    fixed = [_fixed(bullet, g, cite) for g, cite in zip(groups, cites, strict=True)]
    # A text of more words than the budget has tokens (a word is one at the least) is cut
    # whatever its share: it is neither made one line nor counted whole (its need is above
    # any share), its excerpt counts what it shows.
    longer = [more_words(g.kept.text, max_tokens) for g in groups]
    texts = [
        g.kept.text if long else one_line(g.kept.text)
        for g, long in zip(groups, longer, strict=True)
    ]
    tiers = list(dict.fromkeys(g.kept.tier for g in groups))
    heads = [section(t, style, year) for t in tiers]
    # One count of every part: a text's count is passed on, never counted again.
    shorter = [t for t, long in zip(texts, longer, strict=True) if not long]
    costs = counter.count([*heads, *fixed, *shorter])
    head_costs = dict(zip(tiers, costs[: len(heads)], strict=True))
    fixed_costs = costs[len(heads) : len(heads) + len(groups)]
    counted = iter(costs[len(heads) + len(groups) :])
    needs = [max_tokens + 1 if long else next(counted) for long in longer]
    # A tier's heading is paid by its first entry: it is only shown with one.
    for n, group in enumerate(groups):
        fixed_costs[n] += head_costs.pop(group.kept.tier, 0)
    shares = _shares(fixed_costs, needs, max_tokens)
    chosen: list[Included] = []
    spare = 0
    for n, share in enumerate(shares):
        group = groups[n]
        cut = excerpt(group.kept.text, terms, share + spare, counter, whole=(texts[n], needs[n]))
        if not cut.text:
            spare += share + fixed_costs[n]
            continue
        spare = share + spare - cut.tokens
        chosen.append(_included(group, cites[n], cut.text, cut.cut))
    chosen.sort(key=lambda i: -i.source.score)
    shown = {i.source.id for i in chosen}
    left = [s.id for g in groups if g.kept.id not in shown for s in [g.kept, *g.repeats]]
    return _fitted(chosen, patterns, left, style, counter, max_tokens, year)


def _shares(fixed: list[int], needs: list[int], room: int) -> list[int]:
    """Tokens of text for each of the first entries that fit: the first (most relevant)
    given up to ``LEAD_SHARE`` of ``room`` (all its text when it needs less) and what the
    others leave, the others fair shares of the rest; fair shares of all of it when the
    first would show no more than ``MIN_EXCERPT`` tokens so."""
    if not fixed:
        return []
    lead = min(needs[0], int(room * LEAD_SHARE) - fixed[0])
    if lead <= MIN_EXCERPT:
        return _fair_shares(fixed, needs, room)
    rest = room - fixed[0] - lead
    shares = _fair_shares(fixed[1:], needs[1:], rest, fallback=False)
    # What the others leave (there are none, or all fit whole) goes back to the first.
    unused = rest - sum(fixed[1 : 1 + len(shares)]) - sum(shares)
    return [min(needs[0], lead + unused), *shares]


def _fair_shares(
    fixed: list[int], needs: list[int], room: int, *, fallback: bool = True
) -> list[int]:
    """Tokens of text for each of the first entries that fit: as many entries as can show
    at least ``MIN_EXCERPT`` tokens (or all their text), then each given the same level of
    text (all of it when it needs less), the highest level that fits in ``room``.
    ``fallback``: when not even one fits so, the first is given what there is."""
    count, used = 0, 0
    for cost, need in zip(fixed, needs, strict=True):
        least = cost + min(need, MIN_EXCERPT)
        if used + least > room:
            break
        used += least
        count += 1
    if count == 0 and fallback and fixed and fixed[0] < room:
        # Too little room for a fair excerpt: the best entry gets what there is.
        return [min(needs[0], room - fixed[0])]
    fixed, needs = fixed[:count], needs[:count]
    low, high = min(MIN_EXCERPT, max(needs, default=0)), max(needs, default=0)
    while low < high:
        level = (low + high + 1) // 2
        if sum(fixed) + sum(min(need, level) for need in needs) <= room:
            low = level
        else:
            high = level - 1
    return [min(need, low) for need in needs]


def _fitted(
    chosen: list[Included],
    patterns: Sequence[Source],
    left_out: list[str],
    style: Style,
    counter: TokenCounter,
    max_tokens: int,
    year: int | None,
) -> Block:
    """The block of ``chosen`` and the whole patterns that still fit; should the counter
    count the whole block above the sum of its parts, the last entries are left out.
    ``year``: the one year of the entries, said in the headings."""
    _, pattern_heading, bullet = HEADINGS[style]
    chosen = list(chosen)
    while True:
        body = _render(style, chosen, bullet, year)
        (tokens,) = counter.count([body])
        if tokens <= max_tokens or not chosen:
            break
        dropped = chosen.pop()
        left_out[:0] = [dropped.source.id, *dropped.folded]
    if not chosen:
        return Block("", 0, [], [], left_out, nothing_relevant=False)
    shown: list[Included] = []
    for pattern in patterns:
        candidate = _included(Folded(pattern), citation(pattern), one_line(pattern.text), False)
        text = _render(style, chosen, bullet, year, pattern_heading, [*shown, candidate])
        (total,) = counter.count([text])
        if total <= max_tokens:
            shown.append(candidate)
    text = _render(style, chosen, bullet, year, pattern_heading, shown)
    (tokens,) = counter.count([text])
    return Block(text, tokens, chosen, shown, left_out, nothing_relevant=False)


def _nothing(heading: str, counter: TokenCounter, max_tokens: int) -> Block:
    """The block that says memory holds nothing relevant, as much of it as fits."""
    for text in (f"{heading}\n{NOTHING}", NOTHING, ""):
        (tokens,) = counter.count([text])
        if tokens <= max_tokens:
            return Block(text, tokens, [], [], [], nothing_relevant=True)
    return Block("", 0, [], [], [], nothing_relevant=True)  # pragma: no cover


def _render(
    style: Style,
    entries: Sequence[Included],
    bullet: str,
    year: int | None,
    pattern_heading: str = "",
    patterns: Sequence[Included] = (),
) -> str:
    """The entries under their tiers' headings, the sections in the order of their first
    entries, then the patterns (their dates whole)."""
    lines: list[str] = []
    for tier in dict.fromkeys(i.source.tier for i in entries):
        lines += [*([""] if lines else []), section(tier, style, year)]
        lines += [_line(bullet, i) for i in entries if i.source.tier == tier]
    if patterns:
        lines += ["", pattern_heading, *(_line(bullet, i) for i in patterns)]
    return "\n".join(lines)


def _line(bullet: str, item: Included) -> str:
    return f"{bullet}{item.citation} {item.text}{_notes(item.source.replaces, item.folded)}"


def _fixed(bullet: str, group: Folded[Source], cite: str) -> str:
    """What an entry's line holds beside its text."""
    folded = tuple(r.id for r in group.repeats)
    return f"{bullet}{cite}{_notes(group.kept.replaces, folded)}"


def _notes(replaces: Sequence[str], folded: Sequence[str]) -> str:
    notes = [
        *([f"replaces {', '.join(replaces)}"] if replaces else []),
        *([f"also {', '.join(folded)}"] if folded else []),
    ]
    return f" ({'; '.join(notes)})" if notes else ""


def _included(group: Folded[Source], cite: str, text: str, cut: bool) -> Included:
    return Included(group.kept, cite, text, cut, tuple(r.id for r in group.repeats))
