"""Copying fields between types that name them alike."""

from __future__ import annotations

from typing import Any


def fields_of(source: object, *names: str) -> dict[str, Any]:
    """``source``'s values of ``names``, as keyword arguments of a type that takes them
    unchanged under the same names (a wire type showing a domain one, say)."""
    return {name: getattr(source, name) for name in names}
