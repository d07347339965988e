"""The filters every search result meets, as each store applies them."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.vocabulary import Kind, Tier


@dataclass(frozen=True)
class Filters:
    """Conditions every search result meets, applied inside each store."""

    namespace: str
    tiers: tuple[Tier, ...]
    now: float
    speaker: str | None = None
    chain_type: str | None = None
    tags: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    include_archived: bool = False
    kind: Kind | None = None
    include_superseded: bool = False
    """Superseded entries are left out unless asked for (then shown marked)."""
    as_of: float | None = None
    """Memory as it held at this moment (``service.domain.search.as_of``); None: as it is now."""
