"""When two events record the same thing: the same text (normalised), tier, speaker and
namespace. A repeat written without an id is not stored twice."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from service.domain.entries import Entry

SPACES = re.compile(r"\s+")


def normalised(text: str) -> str:
    """The text as compared for repeats: Unicode NFKC, case folded, runs of white space made
    one space, trimmed."""
    return SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def fingerprint(entry: Entry) -> str:
    """What repeats of an entry share within its namespace: a digest of its tier, speaker and
    normalised text."""
    parts = "\0".join((entry.tier, entry.speaker or "", normalised(entry.text)))
    return hashlib.blake2b(parts.encode(), digest_size=16).hexdigest()
