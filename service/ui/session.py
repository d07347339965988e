"""Console sessions: who is looking, from a signed cookie or a bearer key.

The cookie holds a session id, a keyed digest of the API key signed in with (never the key
itself: a stolen cookie is not a key for the REST API, and removing a key ends its
sessions) and when it was issued, signed with HMAC-SHA256. It is HttpOnly, SameSite=Strict,
limited to ``/ui`` and Secure over https. Every visitor gets one, signed in or not: its id
is what the forms' CSRF tokens are bound to (the sign-in form's too).

Signing out records the session's id where every replica reads it (``SignedOutSessions``),
until the session would have expired: a copy of the cookie is refused from then on.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from litestar.datastructures import Cookie

from service.application.auth import KeyRing, Principal
from service.application.sessions import SessionUseCases
from service.edge.params import AnyRequest

COOKIE = "strata_console"
PATH = "/ui"
SESSION_SECONDS = 12 * 3600
"""How long a sign-in lasts."""
ANONYMOUS = "-"
"""The key digest of a session nobody has signed in to."""


@dataclass(frozen=True)
class Session:
    id: str
    key: str
    """The keyed digest of the API key signed in with; ANONYMOUS before sign-in."""
    issued: int
    """Epoch seconds."""

    @property
    def signed_in(self) -> bool:
        return self.key != ANONYMOUS


@dataclass(frozen=True)
class Viewer:
    """The caller of a console page."""

    principal: Principal | None
    """None: not signed in (only the sign-in page and static files are served then)."""
    session: Session | None
    """None for a caller using ``Authorization: Bearer`` (a script): no cookie, no CSRF."""
    cookie: Cookie | None
    """Set when the session was made for this request: the response sets it."""
    keyed: bool
    """API keys are configured (else every caller on loopback is an admin)."""
    csrf: str
    """The token this viewer's forms carry."""

    @property
    def new_session(self) -> bool:
        return self.cookie is not None

    @property
    def admin(self) -> bool:
        return self.principal is not None and self.principal.role == "admin"


class Sessions:
    """Makes, signs and reads session cookies with ``secret``."""

    def __init__(self, secret: Callable[[], bytes], clock: Callable[[], float]) -> None:
        self.secret = secret
        self.clock = clock

    def sign(self, purpose: str, text: str) -> str:
        """A MAC of ``text`` for one ``purpose`` (so no MAC stands in for another)."""
        mac = hmac.new(self.secret(), f"{purpose}|{text}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")

    def key_digest(self, key: str) -> str:
        return self.sign("key", key)

    def new(self, key: str | None = None) -> Session:
        """A fresh session, signed in with ``key`` when given."""
        digest = self.key_digest(key) if key is not None else ANONYMOUS
        return Session(secrets.token_urlsafe(18), digest, int(self.clock()))

    def encode(self, session: Session) -> str:
        body = f"{session.id}.{session.key}.{session.issued}"
        return f"{body}.{self.sign('session', body)}"

    def decode(self, value: str | None) -> Session | None:
        """The session a cookie holds, if its signature holds and it has not expired."""
        if not value or value.count(".") != 3:
            return None
        body, _, signature = value.rpartition(".")
        if not hmac.compare_digest(signature, self.sign("session", body)):
            return None
        sid, key, issued = body.split(".")
        if not issued.isdigit() or not 0 <= self.clock() - int(issued) < SESSION_SECONDS:
            return None
        return Session(sid, key, int(issued))

    def expires(self, session: Session) -> float:
        """When ``session`` ends by itself (epoch seconds)."""
        return float(session.issued + SESSION_SECONDS)

    def sign_out(self, session: Session, sessions: SessionUseCases) -> None:
        """End ``session`` on every replica: its cookie is refused from now on."""
        if session.signed_in:
            sessions.sign_out(session.id, self.expires(session))

    def csrf(self, session: Session) -> str:
        return self.sign("csrf", session.id)

    def cookie(self, session: Session | None, *, secure: bool) -> Cookie:
        """The cookie that keeps ``session``; None: one that clears it."""
        return Cookie(
            key=COOKIE,
            value=self.encode(session) if session else "",
            path=PATH,
            max_age=SESSION_SECONDS if session else 0,
            secure=secure,
            httponly=True,
            samesite="strict",
        )

    def viewer(self, request: AnyRequest, keys: KeyRing, sessions: SessionUseCases) -> Viewer:
        """Who calls: a bearer key (scripts), else the cookie's session (made anew when
        missing, expired, forged or signed out of), its principal None when nobody is
        signed in to it. Raises Unauthorized for a bearer key that is not one."""
        if not keys.enabled:
            session, new = self._session(request)
            return self._viewer(request, keys.authenticate(None), session, new, keyed=False)
        authorization = request.headers.get("authorization")
        if authorization:
            return Viewer(keys.authenticate(authorization), None, None, True, "")
        session, new = self._session(request)
        principal = keys.find(self.key_digest, session.key) if session.signed_in else None
        # Its key was removed, or it was signed out of (here or on another replica):
        # start over.
        if session.signed_in and (principal is None or sessions.signed_out(session.id)):
            session, new, principal = self.new(), True, None
        return self._viewer(request, principal, session, new)

    def _viewer(
        self,
        request: AnyRequest,
        principal: Principal | None,
        session: Session,
        new: bool,
        *,
        keyed: bool = True,
    ) -> Viewer:
        cookie = self.cookie(session, secure=is_https(request)) if new else None
        return Viewer(principal, session, cookie, keyed, self.csrf(session))

    def _session(self, request: AnyRequest) -> tuple[Session, bool]:
        found = self.decode(request.cookies.get(COOKIE))
        return (found, False) if found is not None else (self.new(), True)


def is_https(request: AnyRequest) -> bool:
    return request.url.scheme == "https"
