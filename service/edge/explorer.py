"""The API explorer at ``/`` and ``/schema/swagger``: Swagger UI over the served OpenAPI
document, its scripts and styles served by the service itself (from the ``swagger-ui-py``
package's files), so it works on a machine without internet."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

from litestar import get
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.params import PathParameter
from litestar.response import File

ASSETS = "/schema/assets"
SHIPPED = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "swagger-ui.css": "text/css",
}
"""The files the explorer's page loads, of those the package ships, with their types."""


def assets_folder() -> Path:
    """Where the ``swagger-ui-py`` package keeps Swagger UI's files (found, not imported:
    the package's own code is for other frameworks)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


def explorer() -> SwaggerRenderPlugin:
    return SwaggerRenderPlugin(
        path=["/", "/swagger"],
        js_url=f"{ASSETS}/swagger-ui-bundle.js",
        standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
        css_url=f"{ASSETS}/swagger-ui.css",
        favicon="",  # none rather than one fetched from elsewhere
    )


@get(f"{ASSETS}/{{name:str}}", include_in_schema=False, sync_to_thread=False)
def explorer_asset(name: Annotated[str, PathParameter(max_length=64)]) -> File:
    """One of Swagger UI's scripts and styles; any other name is not found."""
    if name not in SHIPPED:
        raise NotFoundException(f"no asset {name!r}")
    return File(assets_folder() / name, content_disposition_type="inline", media_type=SHIPPED[name])
