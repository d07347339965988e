"""The settings groups at their defaults, for tests that build domain objects directly.

The values are ``service.settings``' own; a test changes only what it is about."""

from __future__ import annotations

import dataclasses
from typing import Any

from msgspec.structs import replace

from service.domain.aging.tiers import ExpiryPolicy
from service.domain.collections.folders import FolderRules
from service.settings import AnswerSettings, SearchSettings, Settings

DEFAULTS = Settings()
CHUNKING = DEFAULTS.chunking


def search_settings(**changes: object) -> SearchSettings:
    return replace(DEFAULTS.search, **changes)


def answer_settings(**changes: object) -> AnswerSettings:
    return replace(DEFAULTS.answers, **changes)


def expiry_policy(**changes: object) -> ExpiryPolicy:
    """Tier C lifetimes as the lifecycle settings give them."""
    lifecycle = replace(DEFAULTS.lifecycle, **changes)
    return ExpiryPolicy(lifecycle.c_ttl_days, lifecycle.ttl_by_chain_type)


def folder_rules(*roots: str, **changes: Any) -> FolderRules:
    """Collections under ``roots``, within the default bounds."""
    c = DEFAULTS.collections
    rules = FolderRules(roots, max_files=c.max_files, max_file_bytes=c.max_file_bytes)
    return dataclasses.replace(rules, **changes)
