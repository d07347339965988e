"""The README's configuration tables list every setting, in its group, with its real default."""

from __future__ import annotations

import json
import re
from pathlib import Path

from service.settings import PLACES, Settings, variable

README = Path(__file__).resolve().parents[2] / "README.md"
ROW = re.compile(r"^\|\s*`?(STRATA_[A-Z0-9_]+)`?\s*\|\s*(.*?)\s*\|")


def render(value: object) -> str:
    """A default as the README shows it: paths as text, empty strings as "", dicts as {}."""
    if value == "":
        return '""'
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def documented() -> dict[str, tuple[str, str]]:
    """Variable name to the heading it is listed under and its shown default, from the
    tables of the ``## Configuration`` section."""
    section = README.read_text(encoding="utf-8").split("\n## Configuration", 1)[1]
    section = section.split("\n## ", 1)[0]
    found, heading = {}, ""
    for line in section.splitlines():
        if line.startswith("### "):
            heading = line[4:].strip().lower()
        elif m := ROW.match(line):
            found[m.group(1)] = (heading, m.group(2).strip("`"))
    return found


def defaults() -> dict[str, tuple[str, str]]:
    """Variable name to its group and its default, from the settings."""
    settings = Settings()
    return {
        variable(name): (place.group, render(settings.value(name)))
        for name, place in PLACES.items()
    }


def test_readme_lists_every_setting_and_nothing_else() -> None:
    assert set(documented()) == set(defaults())


def test_readme_shows_each_setting_in_its_group_with_its_default() -> None:
    shown = documented()
    assert {name: shown.get(name) for name in defaults()} == defaults()
