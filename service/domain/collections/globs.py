"""Globs over relative POSIX paths, as shells with globstar and qmd read them.

A pattern is split at ``/`` into components (empty and ``.`` components are dropped):

- ``*`` matches any characters but ``/``, ``?`` one character but ``/``, ``[abc]`` and
  ``[!abc]`` one character of (or not of) a set; matching is case-sensitive.
- ``**`` as a whole component matches zero or more folders (``notes/**/*.md`` matches
  ``notes/a.md`` and ``notes/x/y/a.md``); as the last component it matches every file below
  (``notes/**``). Inside a component (``a**b``) it is a plain ``*``.

Matching runs over the components as a set of pattern positions, so its cost is at most
the path's components times the pattern's, whatever the pattern; each component is matched
without backtracking (``service.domain.collections.wildcards``). A glob a caller gives is at most
``MAX_GLOB_LENGTH`` characters.
"""

from __future__ import annotations

from functools import lru_cache

from schemas.vocabulary import GLOB_CHARS
from service.domain.collections.wildcards import compile_component

GLOBSTAR = "**"
MAX_GLOB_LENGTH = GLOB_CHARS
"""Most characters of a glob over documents (``POST /v1/documents/batch``, MCP
``multi_get``); a list of paths may be longer. A collection's mask is bounded by its
schema (200 characters; 1000 in an export file)."""


def glob_match(pattern: str, path: str) -> bool:
    """Whether the relative path ``path`` (a file) matches ``pattern``."""
    parts = _parts(pattern)
    return len(parts) in _advance(parts, _components(path))


def may_contain(pattern: str, folder: str) -> bool:
    """Whether a file somewhere under the relative path ``folder`` could match ``pattern``
    (``""`` is the root); a walk need not enter a folder for which this is False."""
    parts = _parts(pattern)
    return any(at < len(parts) for at in _advance(parts, _components(folder)))


def _advance(parts: tuple[str, ...], names: list[str]) -> set[int]:
    """The pattern positions reached after matching ``names`` from the start: position ``i``
    means ``parts[:i]`` matched them all."""
    states = _skip_globstars(parts, {0})
    for name in names:
        reached: set[int] = set()
        for at in states:
            if at == len(parts):
                continue
            if parts[at] == GLOBSTAR:
                reached |= {at, at + 1}  # one more folder in the globstar, or its last one
            elif compile_component(parts[at]).matches(name):
                reached.add(at + 1)
        states = _skip_globstars(parts, reached)
        if not states:
            break
    return states


def _skip_globstars(parts: tuple[str, ...], states: set[int]) -> set[int]:
    """``states`` with each globstar that is not last also passed over (zero folders)."""
    found = set(states)
    todo = list(states)
    while todo:
        at = todo.pop()
        if at < len(parts) - 1 and parts[at] == GLOBSTAR and at + 1 not in found:
            found.add(at + 1)
            todo.append(at + 1)
    return found


@lru_cache(maxsize=256)
def _parts(pattern: str) -> tuple[str, ...]:
    return tuple(_components(pattern))


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]
