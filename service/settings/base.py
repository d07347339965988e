"""What every group of settings shares: the base class, the kinds of values, and how a
setting's name makes its variable."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

PREFIX = "STRATA_"

Backend = Literal["onnx-int8", "onnx", "torch"]
Switch = Literal["on", "off"]
Count = Annotated[int, Meta(ge=1)]
Days = Annotated[float, Meta(ge=0)]
Share = Annotated[float, Meta(ge=0, le=1)]
Weight = Annotated[float, Meta(ge=0)]


def variable(name: str) -> str:
    """The environment variable of the setting ``name``."""
    return PREFIX + name.upper()


class Group(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A section of the settings. A field is named for its group (``upstream.timeout``); where
    its setting's name says the group too (``upstream_timeout``, STRATA_UPSTREAM_TIMEOUT),
    the group's ``rename`` maps one to the other."""
