"""Revised decisions: does search answer with the current decision, and with the one of a
past moment?

Usage::

    python -m bench.revisions --serve [--topics 300] [--seed 7] [--entries 20000]
        [--queries 200] [--concurrency 8] [--repeats 2] [--json OUT]
    python -m bench.revisions --url http://127.0.0.1:8080 [--api-key KEY] [...]

**How the corpus is made** (``bench/revisions/corpus.py``, seeded): ``--topics`` distinct
subjects, each a component of a product (30: "ledger", "billing service", ...) and an
aspect of it (10: "database", "retry policy", "log retention", ...), each with five or six
real options (PostgreSQL, SQLite, ...; "exponential backoff capped at 60s", ...). Every
topic is decided once and then revised one, two or three times (a third of the topics
each), each version picking another option of its aspect, in templated sentences
("Decision on the ledger database: we will use SQLite, because ...", "Revised decision on
the ledger database: we move from SQLite to PostgreSQL, ..."). Around each version go a
tier C discussion that names the option, sometimes a rival one ("should we reconsider ...",
"I still think MySQL would suit ... better"), and a tier E log line naming component,
aspect and option: distractors that share the question's words. Version ``r`` of every
topic is written in round ``r`` (one ``POST /v1/events`` per 500 events), with a pause
between rounds so that a moment falls between each version and the next.

The same events go to two namespaces: in one each revision names the version it replaces
(``supersedes``), in the other it does not (the service before supersession: every version
live side by side).

**Questions.** For every topic, one question of now in one of four forms ("what did we
decide about the ledger database?", "which database does the ledger use?", "current
decision on the ledger database", "ledger database decision"), and one with ``as_of`` a
moment between two of its versions (after version ``r``, before ``r + 1``, ``r`` drawn at
random), whose answer is version ``r``. Each is asked three ways: a search of the
decisions (``tiers: ["A"]``, ``limit`` 10), a default search (auto mode, every tier,
``limit`` 10) and ``POST /v1/retrieve`` (``top_n`` 10). Reported: the right version at
rank 1, and whether any older version of the topic is among the 10 results.

**Cost.** The 20k mixed workload of ``bench.load`` (same generator and queries) is
ingested into the same service; its queries then run at ``--concurrency`` as plain default
searches, with ``include_superseded``, and with ``as_of`` (now), ``--repeats`` times in
turn (each cell new queries: the service caches outcomes): searches/s and p50 per variant.
"""
