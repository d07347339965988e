"""The domain's errors of engines and indexes."""

from __future__ import annotations


class IndexUnavailable(Exception):
    """The indexes refused every entry: they, not the entries, are at fault."""


class EngineUnavailable(Exception):
    """An engine did not answer: gone away, refusing connections or past its timeout. The
    caller degrades (a search without the vector store or the model answers from keywords)
    or tells the client to retry (the ledger: 503 with ``Retry-After``)."""

    def __init__(self, engine: str, detail: str) -> None:
        super().__init__(f"{engine} unavailable: {detail}")
        self.engine = engine
        """``ledger``, ``vector store``, ``model`` or ``keyword index``."""
        self.detail = detail
