"""The console sessions signed out of, in the database every replica shares (the ``runs``
group): a cookie of a session signed out of on one replica is refused by all."""

from __future__ import annotations

from sqlalchemy import delete, select

from service.stores.database import Database
from service.stores.tables import signed_out

S = signed_out.c


class SqlSignedOutSessions:
    def __init__(self, database: Database) -> None:
        self._db = database

    def sign_out(self, session: str, until: float, now: float) -> None:
        record = (
            self._db.insert(signed_out)
            .values(session=session, until=until)
            .on_conflict_do_nothing()
        )
        with self._db.write() as conn:
            conn.execute(delete(signed_out).where(S.until < now))
            conn.execute(record)

    def signed_out(self, session: str) -> bool:
        with self._db.read() as conn:
            found = conn.execute(select(S.session).where(S.session == session)).first()
        return found is not None
