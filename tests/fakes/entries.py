"""Entries and filters with test defaults, and the filter semantics the fake indexes share."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from service.domain.entries import Entry, Tier
from service.domain.model import Filters

T0 = 1_700_000_000.0
"""A fixed 'now' for tests: 2023-11-14T22:13:20Z."""

_WORD = re.compile(r"\w+")


def make_entry(id: str, text: str, tier: Tier = "A", namespace: str = "ns", **fields: Any) -> Entry:
    """An entry with test defaults; ``fields`` sets any other ``Entry`` field."""
    return Entry(id=id, namespace=namespace, tier=tier, text=text, **{"timestamp": T0, **fields})


def make_filters(
    namespace: str = "ns", tiers: Sequence[Tier] = ("A", "C", "E"), **fields: Any
) -> Filters:
    return Filters(namespace=namespace, tiers=tuple(tiers), now=T0 + 1, **fields)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def live(entry: Entry, f: Filters) -> bool:
    """Not archived and not expired, unless ``include_archived`` lifts both conditions."""
    return f.include_archived or (
        not entry.archived and (entry.expires_at is None or entry.expires_at > f.now)
    )


def common(entry: Entry, f: Filters) -> bool:
    """The conditions both indexes apply: namespace, speaker, chain type, tags, time, kind."""
    return (
        entry.namespace == f.namespace
        and (f.speaker is None or entry.speaker == f.speaker)
        and (f.chain_type is None or entry.chain_type == f.chain_type)
        and all(tag in entry.tags for tag in f.tags)
        and (f.since is None or entry.timestamp >= f.since)
        and (f.until is None or entry.timestamp <= f.until)
        and (f.kind is None or entry.kind == f.kind)
    )


def matches(entry: Entry, f: Filters) -> bool:
    """Whether ``entry`` passes every filter, as the keyword store applies them."""
    return common(entry, f) and entry.tier in f.tiers and live(entry, f)
