"""What an entry replaced and what replaced it, as every front end shows it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from service.domain.entries import Entry, Supersession
from service.domain.ports import Passages, Relations


class ChainSource(Passages, Relations, Protocol):
    """The ledger, as chains read it."""


@dataclass(frozen=True)
class Link:
    """The other entry of one supersession: its id, when and by whom, its text when live."""

    id: str
    at: float
    actor: str
    text: str | None = None


@dataclass(frozen=True)
class Chain:
    """Of one entry: the entries it replaced and those that replaced it, oldest first."""

    supersedes: list[Link] = field(default_factory=list)
    superseded_by: list[Link] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.supersedes and not self.superseded_by


def chains(ledger: ChainSource, keys: Sequence[str]) -> dict[str, Chain]:
    """The chain of each entry of ``keys`` (an empty one for an entry in none)."""
    relations: list[Supersession] = ledger.supersessions(keys) if keys else []
    others = {r.older for r in relations} | {r.newer for r in relations}
    texts: dict[str, Entry] = (
        {k: e for k, (e, _) in ledger.passages(sorted(others)).items()} if others else {}
    )
    found = {key: Chain() for key in keys}
    for r in relations:
        if r.newer in found:
            found[r.newer].supersedes.append(_link(r.older, r, texts))
        if r.older in found:
            found[r.older].superseded_by.append(_link(r.newer, r, texts))
    return found


def _link(key: str, relation: Supersession, texts: dict[str, Entry]) -> Link:
    entry = texts.get(key)
    other = entry.id if entry else key.split(":", 1)[1]
    return Link(other, relation.at, relation.actor, entry.text if entry else None)
