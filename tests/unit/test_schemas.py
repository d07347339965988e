"""The JSON Schema files in schemas/json are the wire types, regenerated; the contract
stands on its own, importing nothing of the service."""

from __future__ import annotations

import ast
from pathlib import Path

import schemas
from schemas.generate import OUT, render

ROOT = Path(schemas.__file__).parent


def test_schema_files_match_the_wire_types() -> None:
    expected = render()
    on_disk = {p.name: p.read_text() for p in OUT.glob("*.schema.json")}
    stale = sorted(name for name in expected if on_disk.get(name) != expected[name])
    extra = sorted(set(on_disk) - set(expected))
    assert not stale and not extra, (
        f"schemas/json is out of date (stale: {stale}, extra: {extra}); run `make schemas`"
    )


def imports(source: Path) -> set[str]:
    """The top-level packages ``source`` imports from. A relative import stays inside
    ``schemas``, itself a top-level package, so only absolute imports are named."""
    modules: list[str] = []
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.append(node.module)
    return {module.partition(".")[0] for module in modules}


def test_the_contract_imports_nothing_of_the_service() -> None:
    sources = {str(p.relative_to(ROOT.parent)): imports(p) for p in sorted(ROOT.rglob("*.py"))}
    assert {"schemas/wire/__init__.py", "schemas/wire/events.py"} <= set(sources)
    assert "schemas" in sources["schemas/wire/events.py"]  # the walk sees project imports
    assert not {path: found for path, found in sources.items() if "service" in found}


def test_the_vocabulary_is_a_leaf() -> None:
    assert not imports(ROOT / "vocabulary.py") & {"schemas", "service", "tests", "bench"}
