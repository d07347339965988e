"""The ``strata`` command: run the service, or talk to a running one.

Exit codes (``service.cli.exits``): 0 success, 1 the service refused the request
(4xx/5xx), 2 bad usage or configuration, 3 the service could not be reached.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import httpx

from service.cli.exits import OK, REFUSED, UNREACHABLE, USAGE
from service.cli.parser import parser
from service.errors import ConfigError
from service.remote.client import StrataClientError

__all__ = ["OK", "REFUSED", "UNREACHABLE", "USAGE", "main", "parser"]


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ConfigError as exc:
        print(f"strata: {exc}", file=sys.stderr)
        return USAGE
    except Exception as exc:
        return _client_failure(exc)


def _client_failure(exc: Exception) -> int:
    """The exit code of a failed client command, after saying why on stderr; any other
    failure propagates."""
    if isinstance(exc, StrataClientError):
        print(f"strata: {exc}", file=sys.stderr)
        for error in exc.problem.get("errors", []):
            print(f"  {error.get('field')}: {error.get('message')}", file=sys.stderr)
        return REFUSED
    if isinstance(exc, httpx.TransportError):
        print(f"strata: cannot reach the service: {exc}", file=sys.stderr)
        return UNREACHABLE
    raise exc
