"""The ``strata`` parser: every command's help shows the defaults its options have."""

from __future__ import annotations

import argparse

from service.cli.parser import parser


def commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every command's parser by its name, ``collection add`` included."""
    found = {}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = sub
                found |= {f"{name} {n}": s for n, s in commands(sub).items()}
    return found


def test_every_option_with_a_default_shows_it_in_its_help() -> None:
    unshown = []
    for name, command in commands(parser()).items():
        help = " ".join(command.format_help().split())
        for action in command._actions:
            flag = action.nargs == 0
            if flag or action.default is None or not action.option_strings:
                continue
            if f"(default: {action.default})" not in help:
                unshown.append(f"{name} {action.option_strings[-1]}")
    assert not unshown, f"options whose help hides their default: {unshown}"


def test_help_names_no_empty_default() -> None:
    for name, command in commands(parser()).items():
        help = command.format_help()
        assert "(default: None)" not in help and "(default: False)" not in help, name
