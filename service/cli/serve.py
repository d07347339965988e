"""``strata serve``: run the REST service in this process."""

from __future__ import annotations

import argparse
import logging
import os

from service.cli.exits import OK
from service.lib.arenas import fewer_arenas
from service.lib.interpreter import short_turns
from service.settings import Settings

log = logging.getLogger("strata")


def serve(args: argparse.Namespace) -> int:
    fewer_arenas()  # before the server's threads start allocating
    short_turns()
    import uvicorn

    from service import VERSION
    from service.app import create_app
    from service.application.auth import KeyRing
    from service.bootstrap import replica_name
    from service.telemetry.logs import configure_logging
    from service.telemetry.tracing import start_tracing

    # Settings refuse a host other than loopback without API keys.
    settings = Settings.from_env(os.environ, host=args.host, port=args.port, data_dir=args.data_dir)
    configure_logging(settings.telemetry.log_format)
    tracing = start_tracing(os.environ, replica_name(settings), VERSION)
    server = settings.server
    KeyRing.load(server.api_keys, server.api_keys_file)  # a bad key refuses to start, here
    if not server.has_keys:
        log.warning("no API keys configured: open access, listening on loopback only")
    if "FORWARDED_ALLOW_IPS" in os.environ:
        log.warning("FORWARDED_ALLOW_IPS is not read: name proxies in STRATA_TRUSTED_PROXIES")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        uvicorn.run(
            create_app(settings),
            host=server.host,
            port=server.port,
            log_level="info",
            log_config=None,  # the handler configured above, for uvicorn's lines too
            access_log=False,  # each request's line is logged with its id (service/edge/observe.py)
            timeout_graceful_shutdown=10,
            # The app reads X-Forwarded-For from STRATA_TRUSTED_PROXIES alone
            # (service/edge/forwarded.py); uvicorn's own reading trusts 127.0.0.1, that is
            # every client of a service on loopback.
            proxy_headers=False,
        )
    finally:
        if tracing is not None:
            tracing.shutdown()  # sends the spans still waiting
    return OK
