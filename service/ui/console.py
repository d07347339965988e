"""The web console at ``/ui``: the router, who may see it, and what guards it.

Every console route runs ``admit`` first: it finds the viewer (a bearer key, else the
session cookie), sends a caller who has not signed in to the sign-in page and refuses a
form without its CSRF token. Pages then call the same use cases as the REST API, with
the viewer's principal, so roles and namespace scopes apply exactly as there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import anyio.to_thread
from litestar import Router, get
from litestar.di import Provide
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.response import Template
from litestar.static_files import create_static_files_router

from service.application.auth import Principal, presented_key
from service.edge.limits import client_address
from service.edge.params import AnyRequest
from service.errors import Unauthorized
from service.lib.fair import ASKER
from service.settings import Settings
from service.ui import csrf
from service.ui.errors import EXCEPTION_HANDLERS, SignInNeeded
from service.ui.headers import ConsoleHeaders
from service.ui.pages import VIEWER, services_of, viewer_of
from service.ui.routes.calibration import calibration_page, record, remove, roll_back, sweep
from service.ui.routes.collections import (
    collection_page,
    collections_page,
    document_page,
    rescan,
    scan_progress,
)
from service.ui.routes.entries import confirm_delete, delete_entry, entry_page, promote
from service.ui.routes.jobs import jobs_page, rebuild_progress, run_job, start_rebuild
from service.ui.routes.namespaces import namespaces_page
from service.ui.routes.reports import reports_page
from service.ui.routes.search import search_page
from service.ui.routes.service import service_page
from service.ui.routes.sign_in import PUBLIC, sign_in, sign_in_page, sign_out
from service.ui.secret import SigningSecret
from service.ui.session import Sessions, Viewer

STATIC = Path(__file__).parent / "static"
PATH = "/ui"


def console_router(settings: Settings, *, clock: Callable[[], float] = time.time) -> Router:
    secret = SigningSecret(settings.server.ui_secret, settings.storage.data_dir)
    sessions = Sessions(secret.value, clock)

    async def admit(request: AnyRequest) -> None:
        public = bool(request.route_handler.opt.get("public"))
        # Off the event loop: whether a session was signed out of is read from the database.
        find = partial(_viewer_counted, request, sessions, page=not public)
        viewer = await anyio.to_thread.run_sync(find)
        request.state[VIEWER] = viewer
        # The page's reads are served in turns with other callers' (``service/lib/fair.py``).
        signed_in, services = viewer.principal, services_of(request)
        who = services.limits.asker(signed_in) if signed_in else None
        ASKER.set(who or f"client {client_address(request.scope)}")
        if viewer.principal is None and not public:
            then = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            raise SignInNeeded(then if request.method == "GET" else PATH + "/")
        await csrf.check(request, viewer)

    return Router(
        PATH,
        route_handlers=[
            search_page,
            entry_page,
            promote,
            confirm_delete,
            delete_entry,
            namespaces_page,
            reports_page,
            calibration_page,
            sweep,
            roll_back,
            record,
            remove,
            jobs_page,
            service_page,
            run_job,
            start_rebuild,
            rebuild_progress,
            collections_page,
            collection_page,
            scan_progress,
            rescan,
            document_page,
            sign_in_page,
            sign_in,
            sign_out,
            unknown_page,
            create_static_files_router(
                "/static", [STATIC], opt=PUBLIC, name="console-static", send_as_attachment=False
            ),
        ],
        dependencies={
            "viewer": Provide(_viewer, sync_to_thread=False),
            "principal": Provide(_principal, sync_to_thread=False),
            "sessions": Provide(lambda: sessions, sync_to_thread=False),
        },
        before_request=admit,
        middleware=[ConsoleHeaders()],
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        include_in_schema=False,
    )


@get("/{rest:path}", name="console-unknown", sync_to_thread=False)
def unknown_page(rest: FromPath[str]) -> Template:
    """Any other path under /ui: a 404 page, with the console's headers."""
    raise NotFoundException()


def _viewer_counted(request: AnyRequest, sessions: Sessions, *, page: bool) -> Viewer:
    """The caller; a ``page`` (not a static file nor the sign-in form) counted against its
    requests as an API request is. A bearer key (a script) is held to the failed
    authentications of the key and of its address, as the sign-in form is."""
    services = services_of(request)
    address = client_address(request.scope)
    authorization = request.headers.get("authorization")
    if authorization and services.keys.enabled:
        key = presented_key(authorization)
        try:
            viewer = sessions.viewer(request, services.keys, services.sessions)
        except Unauthorized:
            services.limits.key_sent(address, key, right=False)
            raise
        services.limits.key_sent(address, key, right=True)
    else:
        viewer = sessions.viewer(request, services.keys, services.sessions)
    if page and viewer.principal is not None:
        caller = services.limits.caller(viewer.principal.at(address))
        if caller is not None:
            services.limits.request(caller)
    return viewer


def _viewer(request: AnyRequest) -> Viewer:
    viewer = viewer_of(request)
    assert viewer is not None, "admitted before any handler runs"
    return viewer


def _principal(request: AnyRequest) -> Principal:
    principal = _viewer(request).principal
    assert principal is not None, "only public pages serve callers who have not signed in"
    return principal
