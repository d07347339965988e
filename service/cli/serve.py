"""``strata serve``: run the REST service in this process."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os

from service.cli.exits import OK
from service.errors import ConfigError
from service.settings import Settings

log = logging.getLogger("strata")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.app import create_app
    from service.auth import KeyRing

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = Settings.from_env(os.environ, host=args.host, port=args.port, data_dir=args.data_dir)
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
    return OK
