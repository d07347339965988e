"""Signing in with an API key, and out."""

from __future__ import annotations

from typing import Annotated

from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from service.edge.deps import ServicesDep
from service.edge.limits import client_address
from service.edge.params import AnyRequest
from service.errors import TooManyRequests, Unauthorized
from service.ui.headers import PAGE_HEADERS
from service.ui.pages import local, page, redirect
from service.ui.session import Sessions, Viewer, is_https

SIGN_IN = "/ui/sign-in"
PUBLIC = {"public": True}
"""Route option: served to callers who have not signed in."""

SessionsDep = NamedDependency[Sessions]
ViewerDep = NamedDependency[Viewer]
Then = Annotated[str | None, QueryParameter(name="next", max_length=2000)]


@get("/sign-in", name="console-sign-in", opt=PUBLIC, sync_to_thread=False)
def sign_in_page(request: AnyRequest, viewer: ViewerDep, then: Then = None) -> Template | Redirect:
    if viewer.principal is not None:
        return redirect(request, local(then))
    return page(request, "sign_in.html", then=local(then), error=None)


@post("/sign-in", name="console-sign-in-post", opt=PUBLIC, status_code=303)
async def sign_in(
    request: AnyRequest, viewer: ViewerDep, services: ServicesDep, sessions: SessionsDep
) -> Template | Redirect:
    """Check the key; a good one starts a new session (a new id: nothing learnt of the
    anonymous one carries over), a bad one gets the form again with 401. After too many
    bad ones with the key tried, or from the caller's address (then for any key not yet
    signed in with there, right or wrong), the form comes back with 429 instead, saying
    nothing of the key (``service/application/wrong_keys.py``)."""
    form = await request.form()
    then = local(str(form.get("next") or ""))
    if not viewer.keyed:
        return redirect(request, then)
    key = str(form.get("key") or "").strip()
    if not key:
        return page(request, "sign_in.html", status=401, then=then, error="Enter an API key.")
    try:
        services.keys.authenticate(f"Bearer {key}")
        right = True
    except Unauthorized:
        right = False
    try:
        services.limits.key_sent(client_address(request.scope), key, right=right)
    except TooManyRequests as exc:
        error = f"Too many failed sign-ins: {exc.detail}."
        retry = {"Retry-After": str(exc.retry_after)}
        return page(request, "sign_in.html", status=429, headers=retry, then=then, error=error)
    if not right:
        error = "The service has no such API key."
        return page(request, "sign_in.html", status=401, then=then, error=error)
    session = sessions.cookie(sessions.new(key), secure=is_https(request))
    return Redirect(then, status_code=303, headers=PAGE_HEADERS, cookies=[session])


@post("/sign-out", name="console-sign-out", status_code=303, sync_to_thread=True)
def sign_out(
    request: AnyRequest, viewer: ViewerDep, services: ServicesDep, sessions: SessionsDep
) -> Redirect:
    """End the session for every replica (a copy of its cookie is refused from now on) and
    clear the cookie."""
    if viewer.session is not None:
        sessions.sign_out(viewer.session, services.sessions)
    cleared = sessions.cookie(None, secure=is_https(request))
    return Redirect(SIGN_IN, status_code=303, headers=PAGE_HEADERS, cookies=[cleared])
