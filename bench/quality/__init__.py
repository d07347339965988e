"""Retrieval-quality benchmark for the strata REST service on a BEIR-format dataset, with
what each mode costs.

Usage::

    python -m bench.quality DATASET_DIR [--url http://127.0.0.1:8080] [--api-key KEY]
        [--pid PID] [--tier A] [--modes default,bm25,vector,hybrid] [--max-queries N]
        [--batch 256] [--no-ingest] [--namespace-prefix bench] [--[no-]verdict]
        [--[no-]cost] [--concurrency 8] [--serve [--variant NAME:ENV=VALUE[,ENV=VALUE]]...]
        [--foreign DIR]... [--json OUT] [--plot OUT.png]

DATASET_DIR holds ``corpus.jsonl`` (``_id``, ``title``, ``text``, optional ``metadata``),
``queries.jsonl`` (``_id``, ``text``, optional ``metadata``) and ``qrels.tsv`` (header
``query-id<TAB>corpus-id<TAB>score``; a score above 0 marks a relevant document).

Steps:

1. Unless ``--no-ingest``, every corpus row is sent to ``POST /v1/events`` in batches of
   ``--batch``. Ids are sanitized to ``[A-Za-z0-9_.:-]{1,128}``; namespaces come from
   ``metadata.namespace`` (else ``default``) and are prefixed with ``--namespace-prefix``
   plus ``-`` so benchmark data stays apart from anything else on the server. A row's tier
   is its ``metadata.tier``, else ``--tier``; a row with ``metadata.age_days`` is dated that
   many days before the ingest starts (else by ``metadata.timestamp``). ``metadata.type``
   is the entry's type; a row with ``metadata.supersedes`` (corpus ids) replaces those rows
   and is written in a later phase than theirs, so they are stored before.
2. Each query that has at least one relevant document in the qrels (the first
   ``--max-queries`` of them, in file order) is sent to ``POST /v1/search`` once per mode,
   one at a time, with ``limit`` 100, in the namespace given by its own
   ``metadata.namespace``. Mode ``default`` sends nothing else (the service's defaults:
   mode auto, every tier); the others set ``mode`` (and ``rerank``).
3. Per mode the script prints nDCG@10 (linear gain, as pytrec_eval), Recall@10, Recall@100,
   MRR@10, Hit@5, client-side p50/p95 latency and the mean server ``took_ms``, as a
   markdown table.
4. Cost (``--cost``, on by default): each mode's queries are sent again by
   ``--concurrency`` threads sharing one HTTP client (after three uncounted searches in an
   empty namespace). Printed per mode: searches/s, the ratio to bm25 mode's searches/s in
   the same run (bm25's pass runs for it when bm25 is not among ``--modes``), the CPU
   milliseconds per search of the service process and its children (``/proc/PID/stat``
   utime + stime before and after the pass), and the model calls, query tokens, passages
   and passage tokens per search (the ``read_time`` counters of ``GET /v1/stats`` before
   and after). The benchmark's clients share the machine with the service.
5. The verdict (``--verdict``; by default when the service answers ``POST /v1/retrieve``):
   each query is asked once more through retrieve, ``top_n`` 5. Its confidence
   (``answer_confidence``, else ``best_relevance``) is scored against the truth "a relevant
   document is among the entries": AUC, the best Youden's J and its threshold, J and the
   strong_match rate at the service's own threshold, and (in the JSON) a reliability table
   over confidence deciles.
6. By question form, when the set's queries carry ``metadata.form`` (adr-dev's ``worded``,
   ``plain`` and ``log``): two more passes, one at a time, the searches of mode ``default``
   again with ``"tiers": ["A"]`` ("search, tier A only") and every query through
   ``POST /v1/retrieve`` with ``top_n`` 10, its entries in order as the ranking
   ("retrieve"). For these, for the ``default`` mode's searches ("search, every tier"; run
   for this when ``default`` is not among ``--modes``) and for every other mode's, printed
   per form and for ``all decision`` (worded + plain): rank 1 (a relevant document first),
   top 3 and MRR@10. Then, per form, what held rank 1 in the every-tier search when no
   relevant document did, by the entry's ``type``: decision, discussion, commit, other, or
   nothing returned (the JSON has it for every endpoint, under ``by_form``).
7. The floor check, per ``--foreign DIR`` (repeatable): after the passes above (so their
   figures are the same with or without it), that other BEIR set is loaded into the same
   service (unless ``--no-ingest``), its namespaces prefixed
   ``<--namespace-prefix>-foreign<n>`` (n counts the ``--foreign`` sets from 1), and this
   set's questions are asked in its namespaces, where nothing answers them: with its n
   namespaces sorted by name, question i goes to the (i mod n)-th. One pass of default
   searches (``limit`` 100), one of retrieves (``top_n`` 10). Printed: the share of
   searches with no result, the mean results per search, the mean ``dropped`` (results
   the service cut under its relevance floor; n/a when the response has no such field),
   and the shares of retrieves with ``strong_match`` false and with no entries.

``--serve`` starts the service itself (``python -m service serve``) on a free loopback port
with a throw-away data directory, with ``STRATA_QUERY_CACHE_SIZE=0`` (no outcome served from
the cache) and ``STRATA_JOBS=off`` (no scheduled job during a pass); ``--url`` is then
ignored. It is started again on the same data before each pass (a mode's searches one at
a time, its cost pass, the verdict, the passes by form, the floor check's), so every pass
begins with empty caches (query vectors, passage vectors kept between searches), its own
read-time counters and nothing left running from the ingest: a pass never reuses what
another embedded, and the order of the modes does not matter.

``--variant NAME:ENV=VALUE[,ENV=VALUE]`` (with ``--serve``, repeatable) runs everything once
more on another service started with those settings on top of the environment
(``STRATA_`` is added to a name without it; a comma followed by ``NAME=`` starts the next
setting, so JSON values keep theirs). Each variant is a service of its own that ingests the
set into its own data directory: any setting can differ, those that shape what is stored
too, at the price of one ingest per variant. The tables then carry a variant column;
``base`` is the environment's settings. ``NAME:`` alone runs the base settings again, which
shows how much the figures move between two runs of the same thing.

Against a running service (``--url``) nothing is restarted and its caches are as the earlier
passes left them: start it with ``STRATA_QUERY_CACHE_SIZE=0``. Its CPU is read from
``--pid``, else from the process listening on the URL's port when it is on this machine.

``--json OUT`` also writes the figures, cost, ``by_form`` and ``floor`` included, to a JSON
file: the base settings' at the top, each variant's under ``variants``.
"""
