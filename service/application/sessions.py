"""The console's sessions signed out of: no replica accepts one again."""

from __future__ import annotations

from collections.abc import Callable

from service.domain.ports import SignedOutSessions


class SessionUseCases:
    def __init__(self, signed_out: SignedOutSessions, clock: Callable[[], float]) -> None:
        self._signed_out = signed_out
        self._clock = clock

    def sign_out(self, session: str, until: float) -> None:
        """End ``session`` on every replica, until it would have ended by itself."""
        self._signed_out.sign_out(session, until, self._clock())

    def signed_out(self, session: str) -> bool:
        return self._signed_out.signed_out(session)
