"""The tools over stdin/stdout (``strata mcp``), backed by a running service."""

from __future__ import annotations

from service.mcp.backends import RestBackend
from service.mcp.tools import build_server
from service.remote.client import StrataClient


def serve_stdio(client: StrataClient) -> None:
    """Serve the tools over stdin/stdout, backed by the service ``client`` talks to."""
    backend = RestBackend(client)
    build_server(lambda _: backend).run("stdio")
