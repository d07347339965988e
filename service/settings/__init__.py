"""Service settings: frozen groups of ``STRATA_*`` variables, checked by msgspec against
their types and bounds. Every default of the service is written here, once: the groups in a
module each by concern, ``Settings`` and how the environment is read here.

Each field is read from ``STRATA_<FIELD NAME UPPERCASED>``; the group a field sits in only
orders the settings (as the README's configuration table does), it is not part of the name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import msgspec
from msgspec import Struct, field

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

    server: ServerSettings = field(default_factory=ServerSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    answers: AnswerSettings = field(default_factory=AnswerSettings)
    lifecycle: LifecycleSettings = field(default_factory=LifecycleSettings)
    collections: CollectionSettings = field(default_factory=CollectionSettings)
    cluster: ClusterSettings = field(default_factory=ClusterSettings)
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)

    upstream: UpstreamSettings = field(default_factory=UpstreamSettings)

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: object) -> Settings:
        """Settings from ``STRATA_*`` variables; ``overrides`` (CLI flags, by setting name)
        win when not None."""
        values: dict[str, object] = {}
        for name, kind in _KINDS.items():
            raw = environ.get(variable(name))
            # Empty counts as unset, except where empty means "off".
            if raw is not None and (raw.strip() != "" or name in EMPTY_MEANS_OFF):
                values[name] = _from_text(name, kind, raw.strip())
        values.update({k: v for k, v in overrides.items() if v is not None})
        return _build(values)

    def replace(self, **changes: object) -> Settings:
        """These settings with some changed, by setting name (``data_dir=..., jobs="off"``),
        checked as the environment's are."""
        current = {name: getattr(getattr(self, group), name) for name, group in _GROUP_OF.items()}
        return _build({**current, **changes})


_GROUPS: dict[str, type[Group]] = {f.name: f.type for f in msgspec.structs.fields(Settings)}
_GROUP_OF = {f.name: g for g, kind in _GROUPS.items() for f in msgspec.structs.fields(kind)}
_KINDS = {f.name: f.type for kind in _GROUPS.values() for f in msgspec.structs.fields(kind)}
_INTEGER = re.compile(r"[+-]?\d+")


def _build(values: Mapping[str, object]) -> Settings:
    if unknown := sorted(set(values) - set(_GROUP_OF)):
        raise TypeError(f"no such setting: {', '.join(unknown)}")
    groups: dict[str, Any] = {}
    for group, kind in _GROUPS.items():
        given = {name: v for name, v in values.items() if _GROUP_OF[name] == group}
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
    kind = _unannotated(_KINDS[name])
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
