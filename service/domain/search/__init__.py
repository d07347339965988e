"""A search, in the order it runs: candidates from both indexes (``retrieval``), fused
(``fusion``, ``learned``, ``intent``), hydrated from the ledger (``hydration``, ``as_of``),
scored (``ranking``, ``answerable``, ``unembedded``, ``similarity``), spread (``diversity``) and
shown (``snippets``); the model work reads cost (``usage``); what a search is asked and
answers (``query``)."""
