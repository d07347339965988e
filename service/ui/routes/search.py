"""The search page: hits with their score's parts, and what a retrieve would answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from litestar import get
from litestar.response import Template

from schemas import wire
from service.edge.deps import Caller, CallerDep
from service.edge.params import AnyRequest
from service.errors import InvalidInput
from service.present.answers import retrieve_out
from service.present.search import search_out
from service.ui.forms import LIMITS, MODES, read_form, search_request
from service.ui.pages import page

ASKER = "console"
"""The asker of the console's retrieves (a preview: not logged as an interaction)."""
PARTS = (
    ("bm25", "BM25"),
    ("vector", "vector"),
    ("intent", "kind asked for"),
    ("answerable", "memory holds an answer"),
    ("tier", "tier"),
    ("recency", "recency"),
    ("rerank", "rerank"),
    ("mmr", "diversity"),
)
"""The explain entries shown as bars, in order, with their labels."""
TIMES = "\u00d7"
FACTORS = frozenset({"answerable", "tier", "recency", "mmr"})
"""Explain entries that are multipliers of the score rather than a list's rank and score."""
LOGIT_PARTS = frozenset({"intent"})
"""Explain entries that are a part of the ranking model's log-odds: how far the candidate's
kind moved it for what the question asks for (drawn against ``LOGIT_SPAN``)."""
LOGIT_SPAN = 8.0


@dataclass(frozen=True)
class Part:
    label: str
    share: float
    """The bar's length in [0, 1]."""
    text: str


@dataclass(frozen=True)
class Verdict:
    """An answer's confidence against the strong-match threshold, as the page shows them."""

    confidence: str
    threshold: str
    reached: bool
    """At or above the threshold: equal counts."""


def verdict(confidence: float, threshold: float, digits: int = 2) -> Verdict:
    """Both figures with ``digits`` decimals, or as many more as it takes (up to six) for
    two that differ not to read alike."""
    shown = digits
    while shown < 6 and confidence != threshold and _alike(confidence, threshold, shown):
        shown += 1
    return Verdict(f"{confidence:.{shown}f}", f"{threshold:.{shown}f}", confidence >= threshold)


def _alike(a: float, b: float, digits: int) -> bool:
    return f"{a:.{digits}f}" == f"{b:.{digits}f}"


@dataclass(frozen=True)
class Hit:
    hit: wire.SearchHit
    parts: list[Part]


def parts(explain: dict[str, wire.ListRank] | None, top_bm25: float) -> list[Part]:
    """The score's parts as bars. BM25 scores have no fixed bound, so theirs is drawn
    against the best BM25 score on the page; cosines, rerank scores and factors are in
    [0, 1] already."""
    shown: list[Part] = []
    for name, label in PARTS:
        if explain is None or name not in explain:
            continue
        item = explain[name]
        if name in FACTORS:
            shown.append(Part(label, _unit(item.score), f"{TIMES} {item.score:.2f}"))
            continue
        if name in LOGIT_PARTS:
            shown.append(Part(label, _unit(abs(item.score) / LOGIT_SPAN), f"{item.score:+.2f}"))
            continue
        share = item.score / top_bm25 if name == "bm25" and top_bm25 > 0 else item.score
        score = f"{item.score:.2f}" if name == "bm25" else f"{item.score:.3f}"
        rank = f"#{item.rank} · " if item.rank else ""
        shown.append(Part(label, _unit(share), f"{rank}{score}"))
    return shown


def opening(default: str, held: Sequence[str]) -> str:
    """The namespace a search that names none opens on: the key's default when it holds
    entries (where the API searches by default) or when no namespace does, else the first
    by name that holds some, so a first look finds what was written, wherever it was."""
    return default if default in held or not held else held[0]


def _held(caller: Caller) -> list[str]:
    """The namespaces the caller may read that hold entries, by name."""
    spaces = caller.services.status.stats(caller.principal).namespaces
    return [
        ns for ns, tiers in spaces.items() if any(t.active or t.archived for t in tiers.values())
    ]


def _unit(value: float) -> float:
    return min(max(value, 0.0), 1.0)


@get("/", name="console-search", sync_to_thread=True)
def search_page(request: AnyRequest, caller: CallerDep) -> Template:
    form = read_form(request.query_params)
    default = None if form.namespace else caller.principal.namespace(None)
    if default is not None and (opened := opening(default, _held(caller))) != default:
        form = replace(form, namespace=opened)
    found: wire.SearchResponse | None = None
    answer: wire.RetrieveResponse | None = None
    errors: list[str] = []
    if form.q:
        wanted, errors = search_request(form)
        try:
            if wanted is not None:
                found = search_out(caller.services.search.search(caller.principal, wanted))
                if form.retrieve:
                    asked = wire.RetrieveRequest(
                        question=wanted.query,
                        namespace=wanted.namespace,
                        asker=ASKER,
                        include_superseded=wanted.include_superseded,
                        as_of=wanted.as_of,
                    )
                    # A GET writes nothing: the retrieve is a preview, not an interaction.
                    previewed = caller.services.answers.retrieve(
                        caller.principal, asked, record=False
                    )
                    answer = retrieve_out(previewed)
        except InvalidInput as exc:
            errors = [f"{e.field}: {e.message}" for e in exc.errors]
    hits = _hits(found)
    return page(
        request,
        "search.html",
        section="search",
        form=form,
        found=found,
        hits=hits,
        answer=answer,
        verdict=None if answer is None else verdict(answer.answer_confidence, answer.threshold),
        errors=errors,
        namespace=caller.principal.namespace(form.namespace or None)
        if not errors
        else form.namespace,
        default=default,
        namespaces=sorted(caller.principal.namespaces or ()),
        modes=MODES,
        limits=LIMITS,
    )


def _hits(found: wire.SearchResponse | None) -> list[Hit]:
    if found is None:
        return []
    top = max(
        (h.explain["bm25"].score for h in found.results if h.explain and "bm25" in h.explain),
        default=0.0,
    )
    return [Hit(h, parts(h.explain, top)) for h in found.results]
