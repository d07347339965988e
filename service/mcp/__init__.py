"""The MCP interface: strata's tools for agents, over stdio or streamable HTTP.

``tools`` writes the tools once against a ``Backend`` bound to one caller; ``http`` serves
them inside the service at ``/mcp`` on the use cases (``LocalBackend``); ``stdio`` serves
them for ``strata mcp`` over a running service's REST API (``RestBackend``).
"""

from service.mcp.backends import Backend, LocalBackend, RestBackend
from service.mcp.tools import INSTRUCTIONS, build_server

__all__ = ["INSTRUCTIONS", "Backend", "LocalBackend", "RestBackend", "build_server"]
