"""The Alembic migrations of the durable stores: one branch per store (``ledger``,
``catalog``, ``interactions``, ``runs``), for SQLite and Postgres alike. Run by
``service.stores.schema``, never by hand."""
