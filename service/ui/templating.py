"""The console's Jinja environment: templates shipped with the package, autoescaped."""

from __future__ import annotations

from datetime import UTC, date, datetime

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template.config import TemplateConfig

from service.ui import links
from service.ui.marks import marked

NONE = "\u2013"
"""How a missing figure shows: an en dash."""


Moment = str | int | float | datetime | date | None
"""What a template may hand ``when``: ISO 8601 text, epoch seconds, a datetime or date."""


def when(moment: Moment) -> str:
    """A moment as ``2027-01-15 08:00:00 UTC`` (a day alone as ``2027-01-15``): ISO text
    (``2027-01-15T08:00:00.123Z``), epoch seconds, a datetime (one without a zone is
    taken as UTC) or a date. Empty for None and empty text; text that is no ISO moment,
    and seconds out of any calendar's range, are shown as given."""
    if moment is None or moment == "":
        return ""
    at = _moment(moment)
    if at is None:
        return str(moment)
    if not isinstance(at, datetime):
        return at.isoformat()
    if at.tzinfo is not None:
        try:
            at = at.astimezone(UTC)
        except OverflowError:  # within a day of the calendar's ends
            return at.isoformat()
    return at.strftime("%Y-%m-%d %H:%M:%S UTC")


def _moment(moment: str | int | float | datetime | date) -> datetime | date | None:
    """The moment ``moment`` names; None when it names none."""
    if isinstance(moment, bool):  # an int to Python, never a moment
        return None
    if isinstance(moment, int | float):
        try:
            return datetime.fromtimestamp(moment, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(moment, str):
        try:
            return datetime.fromisoformat(moment.replace("Z", "+00:00"))
        except ValueError:
            return None
    return moment


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` with the noun it counts: ``1 entry``, ``2 entries`` (``many`` defaults
    to ``one`` with an s)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


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
    env.filters.update(when=when, percent=percent, size=size, marked=marked, counted=counted)
    env.globals.update(
        query=links.query,
        entry_link=links.entry_link,
        document_link=links.document_link,
        collection_link=links.collection_link,
    )
    return env


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment()))
