"""Runs the migrations on the connection ``service.stores.schema`` gives, in its transaction."""

from alembic import context

from service.stores.tables import GROUPS

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=list(GROUPS.values()),
    transactional_ddl=True,
)
with context.begin_transaction():
    context.run_migrations()
