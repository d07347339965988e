"""Load benchmark for the strata REST service on a generated tiered workload, with peers.

Usage::

    python -m bench.load (--serve | --url http://127.0.0.1:8080) [--entries 10000[,100000]]
        [--api-key KEY] [--pid PID] [--data-dir DIR] [--chroma-url URL] [--seed 7]
        [--namespaces 4] [--days 30] [--batch 500] [--limit 10] [--queries 200]
        [--warmup 5] [--max-seconds 60] [--modes default,bm25,vector,hybrid,hybrid+rerank]
        [--concurrency 1,8,32] [--peers reference,chroma,tantivy] [--peer-concurrency 1,8]
        [--reranker-model PATH] [--keep-expired] [--short-events 2000] [--json OUT]
        [--plot OUT.png]
    python -m bench.load --cluster [--entries 100k] [--modes bm25,vector,hybrid]
        [--concurrency 1,8] [--queries 400] [...]

``--cluster`` compares a SQLite ledger with a Postgres one and one replica with two behind
a round-robin client, starting Postgres, Chroma servers and the replicas itself: see
``bench/load/cluster.py``. The steps below are the single-process run.

For each corpus size in ``--entries`` (``10k``, ``1M`` are understood):

1. **Workload.** A deterministic stream (``--seed``) of about 2% tier A entries
   (architecture decision records, 40-120 words), 8% tier C (discussion paragraphs,
   25-140 words) and 90% tier E (execution log lines, 8-40 words: commands and their
   exit codes, HTTP access lines, stack traces, deploys, test failures), with speaker,
   role, chain_type, tags and metadata, timestamps spread evenly over the last ``--days``
   days, in ``--namespaces`` namespaces of unequal size (48/24/16/12% for four). Text mixes
   the 4000 most frequent whole words of the embedding model's vocabulary, drawn with a
   Zipf law, with a technical lexicon, service names, file paths, error codes, hosts,
   commit hashes and ticket ids. It is generated as it is sent, never held whole.
2. **Ingest.** Events go to ``POST /v1/events`` in batches of ``--batch`` events of one
   tier, so the time of each request counts for its tier: events/s per tier and overall
   (time inside requests; the wall time also includes generating the text). Then, unless
   ``--keep-expired``, the ``expire_c_tier`` job is run once by hand (timed) so the service
   is in its steady state: tier C entries older than their 7-day lifetime archived. With
   ``--serve`` the scheduled jobs are off (``STRATA_JOBS=off``) so none fires mid-run.
3. **Search.** ``--queries`` queries, each made from 2-4 words of a random entry (tier A
   25%, C 25%, E 50%) plus a question form ("what did we decide about ...", "when did ...
   fail") and scoped to that entry's namespace, go to ``POST /v1/search`` with ``limit``
   ``--limit``, for each mode and concurrency (threads sharing one HTTP client; a cell
   stops early after ``--max-seconds``, finishing requests in flight). ``--warmup``
   other queries run first per mode and are not counted. Reported: client-side latency
   p50/p95/p99, searches/s, the server's own ``took_ms`` p50, hits per search, and the
   service's CPU milliseconds per search (its process tree's utime + stime in ``/proc``
   before and after the cell, when the process is known: see step 4) and model calls and
   tokens per search (queries and passages embedded at read time: the ``read_time``
   counters of ``GET /v1/stats`` before and after the cell). ``default`` sends neither
   ``mode`` nor ``rerank``: the search as an agent asks it (auto over every tier).
   ``hybrid+rerank`` sends ``rerank: true``; with ``--serve`` and no real
   ``cross-encoder/ms-marco-MiniLM-L-6-v2`` weights in the Hugging Face cache, the
   service gets a random-weight cross-encoder of that size built by
   ``bench.build_cross_encoder`` (kept in ``bench/out/``): its latency is real, its
   ranking is not.
   Then ``--short-events`` one-sentence events (8-20 words; half tier A, half tier C) go
   to a namespace of their own in batches of ``--batch``: the ingest rate of short
   embedded events, which the corpus's paragraphs do not show.
4. **Resources.** The service's RSS (``/proc/PID/status``: VmRSS at start, after ingest and
   after the searches; VmHWM, its peak) and the size on disk of its data directory, plus
   ``GET /v1/stats``'s breakdown. The process is found as the child started by ``--serve``,
   else from ``--pid``, else as the listener of the ``--url`` port when it is local.
5. **Peers** (``bench.load.peers``), once the service has stopped, built from a second pass
   over the same stream: the reference design (brute-force NumPy cosine + SQLite FTS5
   BM25, RRF), Chroma alone and Tantivy alone. The same queries run in-process at
   ``--peer-concurrency``. Query embedding is inside every vector and hybrid timing,
   service and peers alike. Ratios are service / peer at the same concurrency;
   ``overlap@k`` is the share of the peer's top ``--limit`` ids the service also returned.

Prints markdown tables; ``--json OUT`` writes every figure, ``--plot OUT.png`` plots
latency against corpus size (matplotlib, from the ``bench`` extra). With ``--url``, several
sizes are ingested side by side into the same service (namespaces carry the size), so the
larger runs see the smaller ones' entries too; use ``--serve`` for clean runs.
``--chroma-url`` sets ``STRATA_CHROMA_URL`` for ``--serve`` and points the Chroma peer at
the same server (its collection is dropped at the end). Give it a throw-away server: the
service's ``strata_A``/``strata_C`` collections stay there, and a service started later
with an empty ledger rebuilds (empties) them first.

For 1M entries: the generator streams, the peers hold one float32 matrix of the live tier
A/C vectors (about 40k x 384 at 1M, 60 MB) and keep text on disk (FTS5, Tantivy, Chroma in
a temporary directory; set ``TMPDIR`` to move it), so the benchmark process stays around
1-2 GB; the service's ingest (embedding 100k tier A/C texts) takes the longest.
"""
