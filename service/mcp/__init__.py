"""The MCP interface: strata's tools for agents, over stdio or streamable HTTP.

``tools`` writes the tools once against a ``Gateway`` bound to one caller; ``http`` serves
them inside the service at ``/mcp`` on the use cases (``LocalGateway``); ``stdio`` serves
them for ``strata mcp`` over a running service's REST API (``RestGateway``).
"""

from service.mcp.gateways import Gateway, LocalGateway, RestGateway
from service.mcp.tools import INSTRUCTIONS, build_server

__all__ = ["INSTRUCTIONS", "Gateway", "LocalGateway", "RestGateway", "build_server"]
