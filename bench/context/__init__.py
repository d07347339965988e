"""Evidence at a token budget: does an agent's context block hold the evidence of its
question, against a block an agent would build from search results, and at what cost.

Usage::

    python -m bench.context DATASET_DIR --serve [--max-queries N] [--json OUT]
        [--url http://127.0.0.1:8080] [--api-key KEY] [--tier A] [--batch 256]
        [--no-ingest] [--namespace-prefix bench]

The set is loaded as ``bench.quality`` loads it (``--serve``: a service started here on
loopback, on an empty data directory, then started again on that data so its caches and
counters are empty; tiers, types, ages and namespaces from the corpus metadata). Then each
question with a relevant document, one call at a time:

1. ``POST /v1/retrieve`` with ``top_n`` 10 (what a context call considers by default);
2. ``POST /v1/context`` at each budget (256, 512 and 1,024 tokens), markdown;
3. ``POST /v1/search`` (the default mode) with ``limit`` 50, whose results make the naive
   block at each budget: whole texts on one line each, ``- text``, best first, until the
   next would pass the budget, counted with the service's counter
   (``service.domain.tokens.ModelTokens``) over the embedding model's tokenizer read from
   disk.

The service keeps the vectors of recent questions, so a question's first call embeds it;
the order of the retrieve and the context calls turns from one question to the next, so
each comes first equally often. Around each call (outside its timing) ``GET /v1/stats``
gives the read-time model calls. Per budget and block: the share of questions with a
relevant document inside (the rule is in ``bench.context.blocks``), with every relevant
document inside, with evidence inside only as a cut entry, and the mean tokens and entries;
per call: p50 and p95 latency, its p50 against retrieve's, and the p50 of the calls that
embedded the question and of those that found its vector kept.
"""
