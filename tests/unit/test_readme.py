"""The README's configuration table lists every setting with its real default."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from service.settings import PREFIX, Settings

README = Path(__file__).resolve().parents[2] / "README.md"
ROW = re.compile(r"^\|\s*`?(STRATA_[A-Z0-9_]+)`?\s*\|\s*(.*?)\s*\|")


def render(value: object) -> str:
    """A default as the README shows it: paths as text, empty strings as "", dicts as {}."""
    if value == "":
        return '""'
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def documented() -> dict[str, str]:
    """Variable name to shown default, from the table of the ``## Configuration`` section."""
    section = README.read_text(encoding="utf-8").split("\n## Configuration", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = [ROW.match(line) for line in section.splitlines()]
    return {m.group(1): m.group(2).strip("`") for m in rows if m}


def defaults() -> dict[str, str]:
    values = {}
    for f in dataclasses.fields(Settings):
        value = f.default_factory() if f.default is dataclasses.MISSING else f.default
        values[PREFIX + f.name.upper()] = render(value)
    return values


def test_readme_lists_every_setting_and_nothing_else() -> None:
    assert set(documented()) == set(defaults())


def test_readme_shows_each_settings_default() -> None:
    shown = documented()
    assert {name: shown.get(name) for name in defaults()} == defaults()
