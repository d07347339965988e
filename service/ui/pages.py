"""Responses of console pages: a template with what every page shows, or a redirect."""

from __future__ import annotations

from typing import Any

from litestar.response import Redirect, Template

from service.application import Services
from service.edge.params import AnyRequest
from service.ui.headers import PAGE_HEADERS
from service.ui.session import Viewer

VIEWER = "console_viewer"
"""Where the request's state keeps its Viewer once admitted."""
HOME = "/ui/"


def viewer_of(request: AnyRequest) -> Viewer | None:
    """The request's viewer; None when it was refused before being admitted."""
    viewer: Viewer | None = request.state.get(VIEWER)
    return viewer


def services_of(request: AnyRequest) -> Services:
    services: Services = request.app.state.services
    return services


def page(
    request: AnyRequest,
    template: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Template:
    """``template`` rendered with ``context``, the viewer and the page's path; sets the
    session cookie when the session is new."""
    viewer = viewer_of(request)
    cookies = [viewer.cookie] if viewer is not None and viewer.cookie is not None else []
    return Template(
        template_name=template,
        context={"viewer": viewer, "path": request.url.path, "section": "", **context},
        status_code=status,
        headers={**PAGE_HEADERS, **(headers or {})},
        cookies=cookies,
    )


def redirect(request: AnyRequest, to: str) -> Redirect:
    """303 See Other to ``to`` (a console path), keeping a new session's cookie."""
    viewer = viewer_of(request)
    cookies = [viewer.cookie] if viewer is not None and viewer.cookie is not None else []
    return Redirect(to, status_code=303, headers=PAGE_HEADERS, cookies=cookies)


def local(path: str | None) -> str:
    """``path`` when it is a console page of this service, else the console's home: a
    sign-in never sends the browser elsewhere."""
    if not path or not path.startswith("/ui/") or path.startswith("/ui//") or "\\" in path:
        return HOME
    return path
