"""Memory as it held at a moment, read from the ledger's history of each entry.

An entry counts at a moment when it was recorded by then (its row's last ``created``
event), and shows as it stood then: its tier (``C`` before a later promotion), archived or
not (``archived`` / ``restored`` / ``promoted`` events, and a tier C lifetime that had
passed), superseded or not (``superseded`` / ``reinstated``). What the history cannot give
back is not guessed: the text and fields are today's (an entry rewritten since shows its
new text), an entry deleted since is gone with its text, and a promoted entry's former
expiry is unknown (it is taken as unexpired)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from service.domain.entries import Entry, HistoryEvent


def as_it_was(entry: Entry, events: Sequence[HistoryEvent], moment: float) -> Entry | None:
    """``entry`` as memory held it at ``moment`` (events oldest first); None when it was not
    recorded yet."""
    start = None
    for n, event in enumerate(events):
        if event.action == "created":
            start = n
    if start is None or events[start].at > moment:
        return None
    tier, archived, superseded_by = entry.tier, False, None
    for event in events[start + 1 :]:
        if event.at > moment:
            if event.action == "promoted":
                tier = "C"
            continue
        if event.action == "archived":
            archived = True
        elif event.action in ("restored", "promoted"):
            archived = False
        elif event.action == "superseded":
            superseded_by = event.detail
        elif event.action == "reinstated":
            superseded_by = None
    expired = tier == "C" and entry.expires_at is not None and entry.expires_at <= moment
    return replace(entry, tier=tier, archived=archived or expired, superseded_by=superseded_by)
