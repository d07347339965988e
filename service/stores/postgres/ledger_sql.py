"""The statements of the Postgres ledger that take more than a line."""

from __future__ import annotations

from service.stores.ledger_schema import COLUMNS, FIELDS, LIVE
from service.stores.postgres.pool import CHANGES_LOCK

TYPES = {
    "timestamp": "float8",
    "expires_at": "float8",
    "confidence": "float8",
    "archived": "bool",
    "tokens": "int4",
}
"""The type of each entry column that is not text."""

STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS staged_entries ON COMMIT DELETE ROWS AS "
    f"SELECT {COLUMNS}, written FROM entries WITH NO DATA"
)
"""The table of this connection where a write copies its entries first (emptied at every
commit): ``COPY`` cannot replace rows, ``INSERT ... ON CONFLICT`` from there does."""

COPY_STAGED = f"COPY staged_entries ({COLUMNS}, written) FROM STDIN (FORMAT BINARY)"
STAGED_TYPES = [*(TYPES.get(name, "text") for name in FIELDS), "int8"]
"""The column types of ``COPY_STAGED``: those of ``FIELDS``, then ``written``."""

DRAW_WRITTEN = "SELECT nextval('entries_written') AS n FROM generate_series(1, %s)"
"""Numbers for the ``written`` column of as many entries, drawn before they are written:
entries are written in key order, yet the one given last in a write is the latest."""

_UPDATES = ", ".join(f"{name} = EXCLUDED.{name}" for name in FIELDS if name != "key")

UPSERT_STAGED = (
    f"INSERT INTO entries ({COLUMNS}, written, state) "
    f"SELECT {COLUMNS}, written, 'pending' FROM staged_entries ORDER BY key "
    f"ON CONFLICT (key) DO UPDATE SET {_UPDATES}, written = EXCLUDED.written, "
    "state = 'pending'"
)
"""The staged entries written, in key order: writers of the same new keys wait for each
other in one order, and never deadlock."""

LOCK_ROWS = "SELECT 1 FROM entries WHERE key = ANY(%s) ORDER BY key FOR UPDATE"
"""Rows of existing keys locked in one order by every writer: no deadlock between them."""

HISTORY_OF_PUT = (
    "INSERT INTO history (key, at, action, actor) "
    "SELECT u.k, %(at)s, COALESCE(%(action)s::text, "
    "CASE WHEN e.key IS NULL THEN 'created' ELSE 'updated' END), %(actor)s "
    "FROM unnest(%(keys)s::text[]) WITH ORDINALITY AS u(k, n) "
    "LEFT JOIN entries e ON e.key = u.k ORDER BY u.n"
)
"""History of a write, run before it: ``created`` for keys with no row yet."""

COPY_CHUNKS = "COPY chunks (key, number, text, vector) FROM STDIN (FORMAT BINARY)"
CHUNK_TYPES = ["text", "int4", "text", "bytea"]

LOCK_CHANGES = f"SELECT pg_advisory_xact_lock({CHANGES_LOCK})"

APPEND_CHANGES = (
    "INSERT INTO changes (key, at) "
    "SELECT k, %s FROM unnest(%s::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n"
)

CHANGE_BOUNDS = (
    "SELECT h.horizon, GREATEST(h.horizon, COALESCE((SELECT MAX(seq) FROM changes), 0)) "
    "AS latest FROM (SELECT COALESCE((SELECT horizon FROM change_horizon), 0) AS horizon) h"
)

RAISE_HORIZON = (
    "INSERT INTO change_horizon (one, horizon) VALUES (1, %s) ON CONFLICT (one) "
    "DO UPDATE SET horizon = GREATEST(change_horizon.horizon, EXCLUDED.horizon)"
)

_PREFIXED = ", ".join(f"e.{name}" for name in FIELDS)

HYDRATED = (
    f"SELECT {_PREFIXED}, c.numbers, c.texts, c.vectors FROM entries e "
    "LEFT JOIN LATERAL (SELECT array_agg(number ORDER BY number) AS numbers, "
    "array_agg(text ORDER BY number) AS texts, array_agg(vector ORDER BY number) AS vectors "
    "FROM chunks WHERE chunks.key = e.key) c ON true WHERE {where}"
)
"""Entries with their chunks (numbers, texts and vectors: arrays in chunk order, NULL for
none), of the rows matching ``where`` (to fill in with ``str.format``)."""

PASSAGES = (
    f"SELECT {_PREFIXED}, ARRAY(SELECT c.text FROM chunks c WHERE c.key = e.key "
    f"ORDER BY c.number) AS texts FROM entries e WHERE e.key = ANY(%s) AND e.{LIVE}"
)

STATS = (
    "SELECT e.namespace, e.tier, e.archived, COUNT(*) AS entries, "
    "SUM(COALESCE(v.n, 0))::bigint AS vectors, "
    "SUM(CASE WHEN v.n > 0 THEN e.tokens ELSE 0 END)::bigint AS embedded, "
    "SUM(e.tokens)::bigint AS tokens "
    "FROM entries e LEFT JOIN (SELECT key, COUNT(*) AS n FROM chunks "
    "WHERE vector IS NOT NULL GROUP BY key) v ON v.key = e.key "
    f"WHERE e.{LIVE} GROUP BY e.namespace, e.tier, e.archived"
)
