"""The ``strata`` command."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from collections.abc import Sequence

from service.errors import ConfigError
from service.settings import Settings

log = logging.getLogger("strata")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="strata", description="Tiered memory for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the REST service")
    serve.add_argument("--host", help="interface to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8080)")
    serve.add_argument("--data-dir", help="where entries are kept (default ./strata-data)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        settings = Settings.from_env(
            os.environ, host=args.host, port=args.port, data_dir=args.data_dir
        )
        return _serve(settings)
    except ConfigError as exc:
        print(f"strata: {exc}", file=sys.stderr)
        return 2


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(settings: Settings) -> int:
    import uvicorn

    from service.app import create_app
    from service.auth import KeyRing

    if not KeyRing.load(settings.api_keys, settings.api_keys_file).enabled:
        if not is_loopback(settings.host):
            raise ConfigError(
                f"refusing to listen on {settings.host} without API keys; "
                "set STRATA_API_KEYS or STRATA_API_KEYS_FILE, or bind to 127.0.0.1"
            )
        log.warning("no API keys configured: open access, listening on loopback only")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        timeout_graceful_shutdown=10,
    )
    return 0
