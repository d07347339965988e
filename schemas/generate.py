"""Write the JSON Schema of every wire type to ``schemas/json``: ``python -m schemas.generate``."""

from __future__ import annotations

import json
from pathlib import Path

from schemas.wire import CONTRACT, json_schema

OUT = Path(__file__).parent / "json"


def render() -> dict[str, str]:
    """File name → contents for every type of the contract."""
    return {
        f"{name}.schema.json": json.dumps(json_schema(kind), indent=2, sort_keys=True) + "\n"
        for name, kind in CONTRACT.items()
    }


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, text in render().items():
        (OUT / name).write_text(text)
        print(f"wrote schemas/json/{name}")


if __name__ == "__main__":
    main()
