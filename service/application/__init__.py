"""The application layer: one use case per action, whoever asks.

REST controllers, MCP tools, the console, in-process CLI commands and the scheduled jobs
call these and nothing below them. Each use case takes plain inputs and the caller's
``Principal``, enforces every rule (validation, role, namespace scope, limits) before a
store is touched, and returns domain results.
"""

from service.application.services import Services, Stores

__all__ = ["Services", "Stores"]
