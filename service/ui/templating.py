"""The console's Jinja environment: templates shipped with the package, autoescaped."""

from __future__ import annotations

from datetime import datetime

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template.config import TemplateConfig

from service.ui import links
from service.ui.marks import marked

NONE = "\u2013"
"""How a missing figure shows: an en dash."""


def when(iso: str | None) -> str:
    """``2027-01-15T08:00:00.123Z`` as ``2027-01-15 08:00:00 UTC``; empty for None."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def percent(share: float | None, digits: int = 0) -> str:
    return NONE if share is None else f"{share * 100:.{digits}f}%"


def size(count: int | None) -> str:
    """Bytes in the unit that reads best."""
    if count is None:
        return NONE
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("service.ui", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(when=when, percent=percent, size=size, marked=marked)
    env.globals.update(
        query=links.query,
        entry_link=links.entry_link,
        document_link=links.document_link,
        collection_link=links.collection_link,
    )
    return env


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment()))
