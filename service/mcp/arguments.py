"""Tool arguments derived from the wire types, so MCP and REST take the same inputs."""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

_BOUNDS = ("min_length", "max_length", "pattern", "ge", "le", "gt", "lt")


def like(struct: type[msgspec.Struct], name: str, description: str, **extra: Any) -> Any:
    """A pydantic ``Field`` for argument ``name`` with the constraints the wire type
    ``struct`` puts on its field of that name."""
    return Field(description=description, **_constraints(struct, name), **extra)


def _constraints(struct: type[msgspec.Struct], name: str) -> dict[str, Any]:
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    found = next(f.type for f in info.fields if f.name == name)
    if isinstance(found, mi.UnionType):  # Optional[...]: the constraints of the non-None part
        found = next(t for t in found.types if not isinstance(t, mi.NoneType))
    if isinstance(found, mi.Metadata):
        found = found.type
    return {
        bound: getattr(found, bound) for bound in _BOUNDS if getattr(found, bound, None) is not None
    }


def convert(fields: dict[str, Any], kind: type[msgspec.Struct]) -> Any:
    """A wire request from tool arguments, checked against the REST contract."""
    try:
        return msgspec.convert({k: v for k, v in fields.items() if v is not None}, kind)
    except msgspec.ValidationError as exc:
        raise ToolError(f"Invalid input: {exc}") from exc
