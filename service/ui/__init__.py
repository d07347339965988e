"""The web console: server-rendered pages at ``/ui`` over the same use cases as the API."""

from service.ui.console import console_router
from service.ui.templating import template_config

__all__ = ["console_router", "template_config"]
