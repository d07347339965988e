"""The words the wire contract and the domain share: tiers, search modes, kinds of entry,
ratings, and the patterns of namespaces and entry ids.

Defined here, once, with no project imports: the public contract depends on nothing of the
service, and ``service.domain`` takes its vocabulary from here.
"""

from __future__ import annotations

from typing import Literal

Tier = Literal["A", "C", "E"]
TIERS: tuple[Tier, ...] = ("A", "C", "E")
EMBEDDED_TIERS: tuple[Tier, ...] = ("A", "C")
"""The tiers whose entries have vectors; tier E is found by keywords only."""

Mode = Literal["auto", "bm25", "vector", "hybrid"]
MODES: tuple[Mode, ...] = ("auto", "bm25", "vector", "hybrid")
Kind = Literal["memory", "pattern", "digest"]
"""``pattern``: a reasoning pattern with its variants; ``digest``: what the archive job keeps
of a day of archived tier E entries (written by the service only)."""
KINDS: tuple[Kind, ...] = ("memory", "pattern", "digest")
WrittenKind = Literal["memory", "pattern"]
"""The kinds an event may be written as: digests are the archive job's."""
DIGEST: Kind = "digest"
Rating = Literal["up", "down"]

NAMESPACE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
"""A namespace: an isolated space of entries (no colon: it prefixes entry keys)."""
ID_PATTERN = r"^[A-Za-z0-9_.:@-]{1,128}$"
"""An entry id, unique within its namespace."""
RECALL_HEADER = "X-Strata-Recall"
"""Sent with a search that is itself a recall from an upstream: the service answering it
does not ask an upstream of its own in turn, so two services set as each other's upstream
never ask back and forth."""
GLOB_CHARS = 1000
"""Longest glob over documents (``POST /v1/documents/batch``, MCP ``multi_get``); a list
of paths may be longer."""

# What an entry may hold, whoever writes it: the wire types state these bounds and the
# service checks every entry it stores against them (service/domain/memory/bounds.py).
TEXT_CHARS = 1_000_000
"""Longest text of an entry (and of the thread context kept with it)."""
LABEL_CHARS = 200
"""Longest label: a speaker, role, chain type, type, thread, tag or metadata key."""
MAX_TAGS = 64
MAX_METADATA = 64
"""Most metadata keys of an entry."""
METADATA_VALUE_CHARS = 10_000
"""Longest text a metadata value may be."""
MAX_VARIANTS = 64
"""Most variants of a pattern."""
VARIANT_CHARS = 10_000
