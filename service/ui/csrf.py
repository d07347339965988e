"""Forms that change state carry a token only the console's own pages know.

The token is an HMAC of the session id (see ``Sessions.csrf``): a page elsewhere cannot
read it, and a cookie session without it changes nothing. A caller using
``Authorization: Bearer`` (a script) needs none: no browser sends that header by itself.
"""

from __future__ import annotations

import hmac

from service.edge.params import AnyRequest
from service.errors import Forbidden
from service.ui.session import Viewer

FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD"})


class CsrfRefused(Forbidden):
    title = "Form refused"


async def check(request: AnyRequest, viewer: Viewer) -> None:
    """Raise CsrfRefused unless the request is safe, from a script, or its form carries
    the viewer's token."""
    if request.method in SAFE_METHODS or viewer.session is None:
        return
    form = await request.form()
    sent = form.get(FIELD)
    if viewer.new_session or not isinstance(sent, str) or not sent:
        raise CsrfRefused(
            "this form carries no valid token (the session may have expired): open the page "
            "again and resend it"
        )
    if not hmac.compare_digest(sent, viewer.csrf):
        raise CsrfRefused("this form's token does not match your session: open the page again")
