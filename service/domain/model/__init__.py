"""The values the rooms and the ports share, below them all: a search's filters and hits,
vectors, interactions and feedback, the change log and job runs, stored counts, and
collections with their files. It imports no room."""

from service.domain.model.changes import Change, ChangeBounds, JobRun
from service.domain.model.collections import Collection, IndexedFile, Listing
from service.domain.model.counts import StoredCounts
from service.domain.model.filters import Filters
from service.domain.model.hits import ORDER_PLACES, Hit, KeywordStatistics, UpstreamHit, in_order
from service.domain.model.interactions import Feedback, Interaction, InteractionResult
from service.domain.model.vectors import Matrix

__all__ = [
    "ORDER_PLACES",
    "Change",
    "ChangeBounds",
    "Collection",
    "Feedback",
    "Filters",
    "Hit",
    "IndexedFile",
    "Interaction",
    "InteractionResult",
    "JobRun",
    "KeywordStatistics",
    "Listing",
    "Matrix",
    "StoredCounts",
    "UpstreamHit",
    "in_order",
]
