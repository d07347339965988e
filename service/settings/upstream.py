"""Another memory service asked when a search finds nothing here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated
from urllib.parse import urlsplit

from msgspec import Meta, field

from schemas.vocabulary import NAMESPACE_PATTERN
from service.errors import ConfigError
from service.net.addresses import redacted
from service.settings.base import Count, Group, Switch


def _variable_name(name: str) -> str:
    """A field's setting name: the group's name before it, as in STRATA_UPSTREAM_TIMEOUT,
    for ``timeout``."""
    return f"upstream_{name}"


class UpstreamSettings(Group, frozen=True, rename=_variable_name):
    url: str = ""
    """Base URL (``http://host:port``) of another memory service speaking strata's search
    contract (another strata, or anything implementing the subset in docs/reference/api.md), asked
    when a search or a retrieve finds nothing here; empty: none."""
    key: str = ""
    """API key sent to the upstream as ``Authorization: Bearer``; empty: none."""
    name: str = ""
    """How results (``upstream.name``) and ``/health`` name the upstream; empty: its
    ``host:port``."""
    namespaces: Mapping[str, Annotated[str, Meta(pattern=NAMESPACE_PATTERN)] | None] = field(
        default_factory=dict
    )
    """Which upstream namespace a local one asks, as JSON: ``{"alice": "team"}``; ``null``
    never asks for that namespace. A namespace not listed asks the one of its own name."""
    timeout: Annotated[float, Meta(gt=0, le=60)] = 1.0
    """Seconds one recall may take in all (attempts, and waits between them); a search
    that found nothing answers within it."""
    retries: Annotated[int, Meta(ge=0, le=10)] = 2
    """Attempts after the first, for failures another attempt may cure (a timeout, a
    refused or dropped connection, 5xx, 429), within the time budget."""
    backoff_ms: Annotated[int, Meta(ge=0, le=10_000)] = 50
    """Most milliseconds of the wait before the first retry; each later one at most doubles
    it (capped at 2 s), and each wait is drawn uniformly below that (full jitter)."""
    failures: Count = 3
    """Failed recalls in a row that open the circuit breaker: the upstream is then not asked
    for STRATA_UPSTREAM_COOLDOWN seconds."""
    cooldown: Annotated[float, Meta(gt=0, le=86_400)] = 30.0
    """Seconds an open breaker stops asking the upstream; then one recall is let through as
    a trial, and its success closes the breaker, its failure opens it again."""
    in_flight: Count = 2
    """Recalls under way at once; one more answers without asking (``busy``), so a slow
    upstream never holds every read thread."""
    on_weak: Switch = "off"
    """``on``: a retrieve with entries but no strong match asks the upstream too, and lists
    its entries after the local ones."""
    store: Switch = "off"
    """``on``: keep what the upstream returns as local entries (id ``<name>:<id>``, the
    tier the upstream gave, a tier C one expiring when it does there, metadata ``upstream``,
    ``upstream_namespace``, ``upstream_id``), so the next search finds them here; ``off``:
    never stored."""

    @property
    def label(self) -> str:
        """``name``, else the URL's ``host:port``."""
        if self.name:
            return self.name
        parts = urlsplit(self.url)
        return parts.netloc.rpartition("@")[2] or "upstream"

    def __post_init__(self) -> None:
        if self.url:
            parts = urlsplit(self.url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(
                    "STRATA_UPSTREAM_URL: expected an http:// or https:// URL, got "
                    f"{redacted(self.url)!r}"
                )
        if self.name and not re.fullmatch(NAMESPACE_PATTERN, self.name):
            raise ConfigError(
                "STRATA_UPSTREAM_NAME: letters, digits, '_', '.' and '-' (at most 64), "
                f"got {self.name!r}"
            )
