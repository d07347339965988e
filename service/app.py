"""The one place the web application is assembled."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.openapi import OpenAPIConfig

from service import VERSION
from service.api.admin import AdminController
from service.api.answers import AnswersController
from service.api.calibrations import CalibrationsController
from service.api.collections import CollectionsController, DocumentsController
from service.api.events import EventsController
from service.api.metrics import metrics
from service.api.namespaces import NamespacesController
from service.api.references import ReferencesController
from service.api.search import SearchController
from service.api.status import health, stats
from service.application import Services
from service.edge.deps import DEPENDENCIES
from service.edge.explorer import explorer, explorer_asset
from service.edge.forwarded import forwarded
from service.edge.guard import RequestGuard
from service.edge.hooks import before_request
from service.edge.limits import RequestLimits
from service.edge.observe import observed, send_request_id
from service.edge.openapi import ContractDocument
from service.edge.pools import Pools, reads_pool
from service.edge.problems import EXCEPTION_HANDLERS
from service.lifespan import running
from service.mcp.http import mcp_endpoint, mcp_lifespan
from service.settings import Settings
from service.ui import console_router, template_config


def create_app(settings: Settings | None = None, *, services: Services | None = None) -> Litestar:
    """The Litestar app. Given ``services`` it uses them (and leaves closing to the caller);
    otherwise it opens them from ``settings`` at start-up and closes them at shutdown."""
    settings = settings or (services.settings if services else Settings.from_env(os.environ))
    reads_pool(settings)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.pools = pools = Pools(settings)
        try:
            if services is not None:
                app.state.services = services
                yield
                return
            async with running(settings) as runtime:
                app.state.services = runtime.services
                yield
        finally:
            pools.close()

    app = Litestar(
        route_handlers=[
            EventsController,
            SearchController,
            AnswersController,
            CollectionsController,
            DocumentsController,
            AdminController,
            CalibrationsController,
            ReferencesController,
            NamespacesController,
            stats,
            health,
            metrics,
            mcp_endpoint,
            explorer_asset,
            console_router(settings),
        ],
        dependencies=DEPENDENCIES,
        middleware=[RequestGuard(settings.server), RequestLimits()],
        before_request=before_request,
        before_send=[send_request_id],
        logging_config=None,  # the process's own (service/telemetry/logs.py), set by `serve`
        lifespan=[lifespan, mcp_lifespan],
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        request_max_body_size=settings.server.max_body_bytes,
        template_config=template_config(),
        openapi_config=OpenAPIConfig(
            title="strata",
            version=VERSION,
            path="/schema",
            render_plugins=[
                ContractDocument(
                    keys=settings.server.has_keys,
                    limited=settings.server.has_keys or settings.limits.limit_addresses == "on",
                ),
                explorer(),
            ],
        ),
    )
    # Outside routing: requests no route serves are observed too, and every reader of the
    # client's address sees the one a trusted proxy named.
    return forwarded(observed(app), settings.server.proxies)
