"""The JSON Schema files in schemas/json are the wire types, regenerated."""

from __future__ import annotations

from schemas.generate import OUT, render


def test_schema_files_match_the_wire_types() -> None:
    expected = render()
    on_disk = {p.name: p.read_text() for p in OUT.glob("*.schema.json")}
    stale = sorted(name for name in expected if on_disk.get(name) != expected[name])
    extra = sorted(set(on_disk) - set(expected))
    assert not stale and not extra, (
        f"schemas/json is out of date (stale: {stale}, extra: {extra}); run `make schemas`"
    )
