"""The HTTP edge every front end shares: the REST API (``service/api``), the console
(``service/ui``) and MCP over HTTP (``service/mcp``) take from here their dependencies, path
parameters, request limits, guard, body reading, request observation, thread pools, problem
details and the OpenAPI contract; none of them owns it."""
