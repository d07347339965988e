"""Service settings: frozen groups of ``STRATA_*`` variables, checked by msgspec against
their types and bounds. Every default of the service is written here, once: the groups in a
module each by concern, ``Settings`` and how the environment is read here.

Each setting is read from ``STRATA_<SETTING NAME UPPERCASED>``. A setting's name is its
field's, unless its group renames the field (msgspec's ``rename``): ``upstream.timeout`` is
the setting ``upstream_timeout``, read from STRATA_UPSTREAM_TIMEOUT. The group a setting sits
in only orders the settings (as docs/reference/configuration.md does).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, get_args, get_origin

import msgspec
from msgspec import Struct

from service.errors import ConfigError
from service.settings.base import PREFIX, Group, variable
from service.settings.lifecycle import LifecycleSettings
from service.settings.limits import ROLES, LimitSettings
from service.settings.retrieval import (
    RELEVANCE_FLOOR,
    AnswerSettings,
    ChunkingSettings,
    ModelSettings,
    SearchSettings,
)
from service.settings.server import UI_SECRET_CHARS, ServerSettings
from service.settings.storage import ClusterSettings, CollectionSettings, StorageSettings
from service.settings.telemetry import TelemetrySettings
from service.settings.upstream import UpstreamSettings

__all__ = [
    "EMPTY_MEANS_OFF",
    "PLACES",
    "PREFIX",
    "RELEVANCE_FLOOR",
    "ROLES",
    "UI_SECRET_CHARS",
    "AnswerSettings",
    "ChunkingSettings",
    "ClusterSettings",
    "CollectionSettings",
    "Group",
    "LifecycleSettings",
    "LimitSettings",
    "ModelSettings",
    "Place",
    "SearchSettings",
    "ServerSettings",
    "Settings",
    "StorageSettings",
    "TelemetrySettings",
    "UpstreamSettings",
    "variable",
]

EMPTY_MEANS_OFF = frozenset({"reranker_model", "collection_roots"})
"""Settings where an empty variable means "none" rather than "unset"."""


class Settings(Struct, frozen=True, kw_only=True):
    """Every knob of the service, by group."""

    server: ServerSettings = ServerSettings()
    limits: LimitSettings = LimitSettings()
    storage: StorageSettings = StorageSettings()
    models: ModelSettings = ModelSettings()
    search: SearchSettings = SearchSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    answers: AnswerSettings = AnswerSettings()
    lifecycle: LifecycleSettings = LifecycleSettings()
    collections: CollectionSettings = CollectionSettings()
    cluster: ClusterSettings = ClusterSettings()
    telemetry: TelemetrySettings = TelemetrySettings()
    upstream: UpstreamSettings = UpstreamSettings()

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: object) -> Settings:
        """Settings from ``STRATA_*`` variables; ``overrides`` (CLI flags, by setting name)
        win when not None."""
        values: dict[str, object] = {}
        for name, place in PLACES.items():
            raw = environ.get(variable(name))
            # Empty counts as unset, except where empty means "off".
            if raw is not None and (raw.strip() != "" or name in EMPTY_MEANS_OFF):
                values[name] = _from_text(name, place.kind, raw.strip())
        values.update({k: v for k, v in overrides.items() if v is not None})
        return _build(values)

    def replace(self, **changes: object) -> Settings:
        """These settings with some changed, by setting name (``data_dir=..., jobs="off"``),
        checked as the environment's are."""
        current = {name: self.value(name) for name in PLACES}
        return _build({**current, **changes})

    def value(self, name: str) -> object:
        """The setting ``name`` (``upstream_timeout``) wherever it sits."""
        place = PLACES[name]
        return getattr(getattr(self, place.group), place.attribute)


class Place(NamedTuple):
    """Where a setting sits in ``Settings``: ``settings.<group>.<attribute>``."""

    group: str
    attribute: str
    kind: object


_GROUPS: dict[str, type[Group]] = {f.name: f.type for f in msgspec.structs.fields(Settings)}
PLACES: Mapping[str, Place] = {
    f.encode_name: Place(group, f.name, f.type)
    for group, kind in _GROUPS.items()
    for f in msgspec.structs.fields(kind)
}
"""Every setting by its name, the one its variable is made of (``variable(name)``)."""
_INTEGER = re.compile(r"[+-]?\d+")


def _build(values: Mapping[str, object]) -> Settings:
    if unknown := sorted(set(values) - set(PLACES)):
        raise TypeError(f"no such setting: {', '.join(unknown)}")
    groups: dict[str, Any] = {}
    for group, kind in _GROUPS.items():
        given = {name: v for name, v in values.items() if PLACES[name].group == group}
        try:
            groups[group] = msgspec.convert(given, kind, strict=False, dec_hook=_path)
        except msgspec.ValidationError as exc:
            raise _named(exc, given) from exc
    return Settings(**groups)


def _from_text(name: str, kind: object, raw: str) -> object:
    """A variable's text as msgspec should see it: JSON for a mapping, text otherwise."""
    base = _unannotated(kind)
    if get_origin(base) is Mapping:
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise ConfigError(f"{variable(name)}: not JSON ({exc})") from exc
    if base is int and not _INTEGER.fullmatch(raw):  # msgspec would read "1e3" as 1000
        raise ConfigError(f"{variable(name)}: expected int, got {raw!r}")
    return raw


def _named(exc: msgspec.ValidationError, given: Mapping[str, object]) -> ConfigError:
    """msgspec's "Expected `int` >= 1 - at `$.max_batch`" as "STRATA_MAX_BATCH: expected
    int >= 1, got '0'"."""
    message, _, where = str(exc).partition(" - at `$.")
    name = re.split(r"[`\[]", where, maxsplit=1)[0]
    if name not in given:
        return ConfigError(str(exc))
    kind = _unannotated(PLACES[name].kind)
    if get_origin(kind) is Literal:
        expected = "expected one of " + ", ".join(get_args(kind))
    else:
        expected = message.split(", got", 1)[0].replace("`", "")
        expected = expected[0].lower() + expected[1:]
        if "[" in where:
            expected += " in each entry"
    return ConfigError(f"{variable(name)}: {expected}, got {given[name]!r}")


def _unannotated(kind: object) -> object:
    return get_args(kind)[0] if get_origin(kind) is Annotated else kind


def _path(kind: type, value: object) -> object:
    if kind is Path and isinstance(value, str | Path):
        return Path(value)
    raise NotImplementedError
