"""A namespace erased from every store: its entries, collections and interactions."""

from __future__ import annotations

from service.domain.entries import Erasure
from service.domain.memory import Transfer
from service.domain.ports import Compaction, NamespaceCatalog, NamespaceInteractions


def erase_namespace(
    namespace: str,
    actor: str,
    transfer: Transfer,
    catalog: NamespaceCatalog,
    interactions: NamespaceInteractions,
    compaction: Compaction,
) -> Erasure:
    """Remove every trace of a namespace: its interactions and feedback, its collections
    and their files, then its entries with their chunks, history and quarantine, its
    vectors and its keyword documents (``Transfer.erase_namespace``); then compact the
    databases so none of it stays in their files. Leaves the audit record it returns."""
    asked, given = interactions.erase(namespace)
    collections, files = catalog.erase(namespace)
    counted = {
        "interactions": asked,
        "feedback": given,
        "collections": collections,
        "files": files,
    }
    erasure = transfer.erase_namespace(namespace, actor, counted)
    compaction.compact()
    return erasure
