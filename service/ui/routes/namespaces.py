"""What each namespace stores, per tier, and what the tiers saved."""

from __future__ import annotations

from dataclasses import dataclass

from litestar import get
from litestar.response import Template

from schemas import wire
from service.domain.entries import TIERS
from service.domain.namespaces.stats import avoided
from service.edge.deps import CallerDep
from service.edge.params import AnyRequest
from service.present.status import stats_out
from service.ui.pages import page


@dataclass(frozen=True)
class Summary:
    """A namespace's tiers added up, a figure for each column of its table."""

    active: int
    archived: int
    vectors: int
    tokens_embedded: int
    tokens: int
    tokens_read_time: int = 0
    """Tokens of its passages embedded by searches since the process started."""

    @property
    def embedding_avoided(self) -> float | None:
        """Share of its tokens the tiers kept from the model, once the tokens embedded at
        write time and at read time are paid; None when it has none."""
        return avoided(self.tokens_embedded, self.tokens_read_time, self.tokens)


def summary(stats: wire.NamespaceStats) -> Summary:
    tiers = stats.tiers.values()
    return Summary(
        sum(t.active for t in tiers),
        sum(t.archived for t in tiers),
        sum(t.vectors for t in tiers),
        sum(t.tokens_embedded for t in tiers),
        sum(t.tokens for t in tiers),
        stats.read_time.tokens,
    )


@get("/namespaces", name="console-namespaces", sync_to_thread=True)
def namespaces_page(request: AnyRequest, caller: CallerDep) -> Template:
    stats = stats_out(caller.services.status.stats(caller.principal))
    return page(
        request,
        "namespaces.html",
        section="namespaces",
        stats=stats,
        summaries={ns.namespace: summary(ns) for ns in stats.namespaces},
        tiers=TIERS,
    )
