"""The statements of the Postgres ledger that take more than a line."""

from __future__ import annotations

from service.stores.ledger_schema import COLUMNS, FIELDS, LIVE
from service.stores.postgres.pool import CHANGES_LOCK

TYPES = {
    "timestamp": "double precision",
    "expires_at": "double precision",
    "confidence": "double precision",
    "archived": "boolean",
    "tokens": "integer",
}
"""The type of each entry column that is not text."""

_ARRAYS = ", ".join(f"%s::{TYPES.get(name, 'text')}[]" for name in FIELDS)
_UPDATES = ", ".join(f"{name} = EXCLUDED.{name}" for name in FIELDS if name != "key")

UPSERT_ENTRIES = (
    f"INSERT INTO entries ({COLUMNS}, state) "
    f"SELECT {COLUMNS}, 'pending' FROM unnest({_ARRAYS}) WITH ORDINALITY AS u({COLUMNS}, n) "
    f"ORDER BY n ON CONFLICT (key) DO UPDATE SET {_UPDATES}, state = 'pending', "
    "written = EXCLUDED.written"
)
"""Entries written (as new rows are: ``written`` drawn again), one array per column of
``FIELDS``, in order."""

HISTORY_OF_PUT = (
    "INSERT INTO history (key, at, action, actor) "
    "SELECT u.k, %(at)s, COALESCE(%(action)s::text, "
    "CASE WHEN e.key IS NULL THEN 'created' ELSE 'updated' END), %(actor)s "
    "FROM unnest(%(keys)s::text[]) WITH ORDINALITY AS u(k, n) "
    "LEFT JOIN entries e ON e.key = u.k ORDER BY u.n"
)
"""History of a write, run before it: ``created`` for keys with no row yet."""

INSERT_CHUNKS = (
    "INSERT INTO chunks (key, number, text, vector) "
    "SELECT * FROM unnest(%s::text[], %s::integer[], %s::text[], %b::bytea[])"
)

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
