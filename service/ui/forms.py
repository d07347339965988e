"""The search form: what a person typed, and the request it makes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import msgspec
from litestar.datastructures import MultiDict

from schemas import wire
from service.domain.entries import TIERS

MODES = ("auto", "hybrid", "bm25", "vector")
LIMITS = (10, 20, 50, 100)
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class SearchForm:
    """The fields as sent, to show again."""

    q: str = ""
    namespace: str = ""
    tiers: tuple[str, ...] = ()
    mode: str = "auto"
    speaker: str = ""
    tags: str = ""
    since: str = ""
    until: str = ""
    archived: bool = False
    superseded: bool = False
    weak: bool = False
    """Show results below the relevance floor too (``min_score`` 0)."""
    as_of: str = ""
    limit: int = 10
    retrieve: bool = False
    errors: list[str] = field(default_factory=list)

    def link(self) -> dict[str, Any]:
        """The form as query parameters, for links that keep it."""
        return {
            "q": self.q,
            "namespace": self.namespace,
            "tier": list(self.tiers),
            "mode": "" if self.mode == "auto" else self.mode,
            "speaker": self.speaker,
            "tags": self.tags,
            "since": self.since,
            "until": self.until,
            "archived": "on" if self.archived else "",
            "superseded": "on" if self.superseded else "",
            "weak": "on" if self.weak else "",
            "as_of": self.as_of,
            "retrieve": "on" if self.retrieve else "",
        }


def read_form(params: MultiDict[Any]) -> SearchForm:
    def text(name: str) -> str:
        value = params.get(name)
        return value.strip() if isinstance(value, str) else ""

    limit = text("limit")
    return SearchForm(
        q=text("q"),
        namespace=text("namespace"),
        tiers=tuple(t for t in TIERS if t in params.getall("tier", [])),
        mode=text("mode") or "auto",
        speaker=text("speaker"),
        tags=text("tags"),
        since=text("since"),
        until=text("until"),
        archived=bool(text("archived")),
        superseded=bool(text("superseded")),
        weak=bool(text("weak")),
        as_of=text("as_of"),
        limit=int(limit) if limit.isdigit() else 10,
        retrieve=bool(text("retrieve")),
    )


def search_request(form: SearchForm) -> tuple[wire.SearchRequest | None, list[str]]:
    """The search the form asks for (``explain`` on), or the reasons it asks for none."""
    fields: dict[str, Any] = {
        "query": form.q,
        "mode": form.mode,
        "limit": form.limit,
        "include_archived": form.archived,
        "include_superseded": form.superseded,
        "explain": True,
        "tags": [t.strip() for t in form.tags.split(",") if t.strip()],
    }
    optional = {
        "namespace": form.namespace,
        "speaker": form.speaker,
        "since": _moment(form.since, "00:00:00"),
        "until": _moment(form.until, "23:59:59.999999"),
        "as_of": _moment(form.as_of, "23:59:59.999999"),
    }
    fields.update({k: v for k, v in optional.items() if v})
    if form.tiers:
        fields["tiers"] = list(form.tiers)
    if form.weak:
        fields["min_score"] = 0.0
    try:
        return msgspec.convert(fields, wire.SearchRequest), []
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `$.")
        name = where.rstrip("`").split("[")[0] or "form"
        return None, [f"{_LABELS.get(name, name)}: {message}"]


def _moment(day: str, time: str) -> str:
    """A date field as a UTC time (its start or end); anything else is passed on as typed,
    so the search names it."""
    return f"{day}T{time}Z" if DAY.fullmatch(day) else day


_LABELS = {
    "query": "search",
    "include_archived": "archived",
    "include_superseded": "superseded",
    "as_of": "as of",
}
