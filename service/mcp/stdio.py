"""The tools over stdin/stdout (``strata mcp``), backed by a running service."""

from __future__ import annotations

from service.mcp.gateways import RestGateway
from service.mcp.tools import build_server
from service.remote.client import StrataClient


def serve_stdio(client: StrataClient) -> None:
    """Serve the tools over stdin/stdout, backed by the service ``client`` talks to."""
    gateway = RestGateway(client)
    build_server(lambda _: gateway).run("stdio")
