"""docs/reference/configuration.md is what the settings say of themselves, regenerated: every
variable, in its group, with its real default and its docstring."""

from __future__ import annotations

import re

from scripts.configuration_reference import PAGE, render
from service.settings import PLACES, variable

ROW = re.compile(r"^\| `(STRATA_[A-Z0-9_]+)` \|", re.MULTILINE)


def test_the_committed_reference_is_what_the_settings_generate() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/reference/configuration.md is out of date; run `make docs`"
    )


def test_the_reference_lists_every_setting_once() -> None:
    listed = ROW.findall(render())
    every = [variable(name) for name in PLACES]
    assert sorted(listed) == sorted(every) and len(set(listed)) == len(listed)
