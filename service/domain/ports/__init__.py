"""What the domain needs from the outside world, one module per concept: the search engines
(``search``), the ledger (``ledger``), collections and files (``catalog``), interactions,
what a cluster shares (``cluster``), compaction, the upstream service, and the providers
of time and ids. Adapters live in ``service.stores``."""

from service.domain.entries import Chunk
from service.domain.ports.catalog import Catalog, Files, NamespaceCatalog
from service.domain.ports.cluster import Checkpoint, Coordination, RunLog, SignedOutSessions
from service.domain.ports.compaction import Compaction
from service.domain.ports.interactions import InteractionLog, NamespaceInteractions
from service.domain.ports.ledger import (
    ChangeLog,
    Entries,
    FollowedLedger,
    History,
    IndexState,
    Inventory,
    Ledger,
    NamespaceEntries,
    Passages,
    Relations,
)
from service.domain.ports.providers import Clock, IdFactory
from service.domain.ports.references import Fits, References
from service.domain.ports.search import Embedder, KeywordStore, Reranker, VectorStore
from service.domain.ports.upstream import Upstream

__all__ = [
    "Catalog",
    "ChangeLog",
    "Checkpoint",
    "Chunk",
    "Clock",
    "Compaction",
    "Coordination",
    "Embedder",
    "Entries",
    "Files",
    "Fits",
    "FollowedLedger",
    "History",
    "IdFactory",
    "IndexState",
    "InteractionLog",
    "Inventory",
    "KeywordStore",
    "Ledger",
    "NamespaceCatalog",
    "NamespaceEntries",
    "NamespaceInteractions",
    "Passages",
    "References",
    "Relations",
    "Reranker",
    "RunLog",
    "SignedOutSessions",
    "Upstream",
    "VectorStore",
]
