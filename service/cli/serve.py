"""``strata serve``: run the REST service in this process."""

from __future__ import annotations

import argparse
import logging
import os

from service.cli.exits import OK
from service.settings import Settings

log = logging.getLogger("strata")


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.app import create_app
    from service.application.auth import KeyRing

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # Settings refuse a host other than loopback without API keys.
    settings = Settings.from_env(os.environ, host=args.host, port=args.port, data_dir=args.data_dir)
    server = settings.server
    KeyRing.load(server.api_keys, server.api_keys_file)  # a bad key refuses to start, here
    if not server.has_keys:
        log.warning("no API keys configured: open access, listening on loopback only")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    uvicorn.run(
        create_app(settings),
        host=server.host,
        port=server.port,
        log_level="info",
        timeout_graceful_shutdown=10,
    )
    return OK
