"""The tables of the durable stores, defined once for SQLite and Postgres.

Four groups, one per store: on SQLite each is a file of the data directory
(``ledger.sqlite3``, ...); on Postgres all live in the one database a cluster shares. The
``runs`` group keeps the service's own state every replica must see: the job runs, and the
console sessions signed out of.
``service.stores.schema`` creates and upgrades them; the stores and ``strata migrate`` read
and write them by these definitions.

Keys and names compare byte by byte on both databases (``COLLATE "C"`` on Postgres, SQLite's
default), so scans and listings come in the same order whatever the database's locale.
Vectors are float32 arrays packed as bytes; an entry's tags, metadata and variants are JSON
text, kept as written."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Sequence,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB

KEY = Text().with_variant(Text(collation="C"), "postgresql")
"""Text compared byte by byte."""
SERIAL = BigInteger().with_variant(Integer(), "sqlite")
"""An integer primary key numbered by the database (SQLite's rowid, a Postgres identity)."""
DOCUMENT = JSON().with_variant(JSONB(), "postgresql")
"""JSON: text in SQLite, jsonb in Postgres."""

ledger = MetaData()
catalog = MetaData()
interactions = MetaData()
runs = MetaData()

GROUPS = {"ledger": ledger, "catalog": catalog, "interactions": interactions, "runs": runs}
"""Each store's tables, by the name of its SQLite file and its migration branch."""

entries_written = Sequence("entries_written", metadata=ledger)
"""Draws the ``written`` number of entries on Postgres (SQLite counts from the highest)."""

entries = Table(
    "entries",
    ledger,
    Column("key", KEY, primary_key=True),
    Column("id", Text, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("tier", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("speaker", Text),
    Column("role", Text),
    Column("chain_type", Text),
    Column("tags", Text, nullable=False),
    Column("timestamp", Float, nullable=False),
    Column("expires_at", Float),
    Column("metadata", Text, nullable=False),
    Column("archived", Boolean, nullable=False, server_default=text("false")),
    Column("kind", Text, nullable=False, server_default="memory"),
    Column("type", Text),
    Column("confidence", Float),
    Column("variants", Text, nullable=False, server_default="[]"),
    Column("thread", Text),
    Column("context", Text),
    Column("tokens", Integer, nullable=False, server_default="0"),
    # Tier, speaker and normalised text digested (service.domain.memory.duplicates): repeats
    # share it.
    Column("fingerprint", Text),
    Column("state", Text, nullable=False),
    # Grows with every write: the entry written last has the highest.
    Column("written", BigInteger, nullable=False),
    # The id of the entry that replaced it, latest first (``supersessions`` has them all);
    # kept by the ledger, never by a write of the entry itself.
    Column("superseded_by", Text),
    Index("entries_tier_time", "tier", "archived", "timestamp"),
    Index(
        "entries_state",
        "state",
        sqlite_where=text("state <> 'synced'"),
        postgresql_where=text("state <> 'synced'"),
    ),
    Index(
        "entries_expiry",
        "expires_at",
        sqlite_where=text("expires_at IS NOT NULL"),
        postgresql_where=text("expires_at IS NOT NULL"),
    ),
    Index(
        "entries_thread",
        "namespace",
        "thread",
        "written",
        sqlite_where=text("thread IS NOT NULL"),
        postgresql_where=text("thread IS NOT NULL"),
    ),
    Index("entries_fingerprint", "namespace", "fingerprint"),
)
# SQLite draws the next ``written`` number from the highest: an index finds it (Postgres
# draws from ``entries_written`` and keeps no such index).
Index("entries_written_order", entries.c.written).ddl_if(dialect="sqlite")

chunks = Table(
    "chunks",
    ledger,
    Column("key", KEY, ForeignKey("entries.key", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("text", Text, nullable=False),
    Column("vector", LargeBinary),
)

history = Table(
    "history",
    ledger,
    Column("id", SERIAL, primary_key=True),
    Column("key", KEY, nullable=False),
    Column("at", Float, nullable=False),
    Column("action", Text, nullable=False),
    Column("actor", Text, nullable=False),
    # For superseded and reinstated: the id of the entry that replaced it or gave it back.
    Column("detail", Text),
    Index("history_key", "key", "at", "id"),
)

supersessions = Table(
    "supersessions",
    ledger,
    Column("key", KEY, primary_key=True),
    Column("by_key", KEY, primary_key=True),
    Column("at", Float, nullable=False),
    Column("actor", Text, nullable=False),
    Index("supersessions_by", "by_key"),
)
"""Which live entry replaced which (``key`` by ``by_key``), when and by whom; a row goes
with either entry's deletion (the history keeps the record)."""

quarantine = Table(
    "quarantine",
    ledger,
    Column("key", KEY, primary_key=True),
    Column("reason", Text, nullable=False),
    Column("at", Float, nullable=False),
)

changes = Table(
    "changes",
    ledger,
    Column("seq", SERIAL, primary_key=True),
    Column("key", KEY, nullable=False),
    Column("at", Float, nullable=False),
    Index("changes_at", "at"),
    sqlite_autoincrement=True,
)
"""The change log replicas follow: one row per key changed, numbered in commit order, a
number never used twice (even after trimming)."""

change_horizon = Table(
    "change_horizon",
    ledger,
    Column("one", Integer, primary_key=True, autoincrement=False),
    Column("horizon", BigInteger, nullable=False),
    CheckConstraint("one = 1", name="change_horizon_one"),
)
"""The highest sequence number trimmed away (one row, or none before the first trim); a
reader behind it rebuilds."""

erasures = Table(
    "erasures",
    ledger,
    Column("id", SERIAL, primary_key=True),
    Column("namespace", Text, nullable=False),
    Column("at", Float, nullable=False),
    Column("actor", Text, nullable=False),
    Column("counts", DOCUMENT, nullable=False),
    sqlite_autoincrement=True,
)
"""One audit record per namespace erased: who, when, and how many rows of each kind went;
nothing of what they held."""

references = Table(
    "reference_questions",
    ledger,
    Column("namespace", Text, primary_key=True),
    Column("id", Text, primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("question", Text, nullable=False),
    Column("answers", DOCUMENT, nullable=False),
    Column("source", Text, nullable=False),
    Column("actor", Text, nullable=False),
    Column("at", Float, nullable=False),
    Column("asked", Text, nullable=False, server_default=""),
    Index("reference_questions_asked", "namespace", "asked"),
)
"""Reference questions: the entries that answer each (none: nothing in memory does), in
the order recorded per namespace (``seq``); ``asked``: the question as every question of
the same words is asked (``asked_as``), by which a retrieve finds its verdict."""

fits = Table(
    "fits",
    ledger,
    Column("namespace", Text, primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("threshold", Float, nullable=False),
    Column("floor", Float, nullable=False),
    Column("at", Float, nullable=False),
    Column("actor", Text, nullable=False),
    Column("figures", DOCUMENT, nullable=False),
)
"""The fits sweeps kept, by namespace and version (from 1)."""

fits_in_force = Table(
    "fits_in_force",
    ledger,
    Column("namespace", Text, primary_key=True),
    Column("version", Integer, nullable=False),
)
"""Which fit each namespace's requests are given; none (or version 0): the shipped one."""

collections = Table(
    "collections",
    catalog,
    Column("id", Text, primary_key=True),
    Column("name", KEY, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("path", Text, nullable=False),
    Column("mask", Text, nullable=False),
    Column("tier", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("scanned_at", Float),
    UniqueConstraint("namespace", "name", name="collections_namespace_name"),
)
"""A name is unique within its namespace: namespaces know nothing of each other's."""

files = Table(
    "files",
    catalog,
    Column(
        "collection",
        Text,
        ForeignKey("collections.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("path", KEY, primary_key=True),
    Column("hash", Text, nullable=False),
    Column("chunks", Integer, nullable=False),
    # The text the file was indexed from (NULL for files indexed before texts were kept).
    Column("text", Text),
)

interaction_log = Table(
    "interactions",
    interactions,
    # The order interactions were logged in.
    Column("n", SERIAL, primary_key=True),
    Column("id", Text, nullable=False, unique=True),
    Column("at", Float, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("asker", Text),
    Column("question", Text, nullable=False),
    Column("results", DOCUMENT, nullable=False),
    Column("strong_match", Boolean, nullable=False),
    Column("best_relevance", Float, nullable=False),
    Column("took_ms", Float, nullable=False),
    # NULL for interactions logged before it was kept.
    Column("answer_confidence", Float),
    Index("interactions_day", "namespace", "at"),
)

feedback = Table(
    "feedback",
    interactions,
    Column("id", SERIAL, primary_key=True),
    Column(
        "interaction_id",
        Text,
        ForeignKey("interactions.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("at", Float, nullable=False),
    Column("rating", Text, nullable=False),
    Column("comment", Text),
    Column("actor", Text, nullable=False),
    Index("feedback_interaction", "interaction_id"),
)

job_runs = Table(
    "job_runs",
    runs,
    Column("id", SERIAL, primary_key=True),
    Column("job", Text, nullable=False),
    Column("replica", Text, nullable=False),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("result", DOCUMENT),
    Column("error", Text),
    # The time a scheduled run was scheduled for: claimed once per job.
    Column("slot", Float),
    Index(
        "job_runs_slot",
        "job",
        "slot",
        unique=True,
        sqlite_where=text("slot IS NOT NULL"),
        postgresql_where=text("slot IS NOT NULL"),
    ),
    Index("job_runs_job", "job", "started_at"),
    sqlite_autoincrement=True,
)

signed_out = Table(
    "signed_out",
    runs,
    Column("session", KEY, primary_key=True),
    Column("until", Float, nullable=False),
    Index("signed_out_until", "until"),
)
"""Console sessions signed out of before they expired: the session's id, and when it would
have expired (its row may go then)."""
