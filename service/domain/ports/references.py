"""Reference questions and sweep fits, kept in the ledger beside the entries they name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from service.domain.model.references import Fit, Reference


class References(Protocol):
    def add_references(self, references: Sequence[Reference]) -> int:
        """Keep references whose (namespace, id) is not kept yet; returns how many were
        added."""
        ...

    def references(self, namespace: str, offset: int = 0, limit: int = 1000) -> list[Reference]:
        """The namespace's references, in the order recorded."""
        ...

    def reference_asking(self, namespace: str, question: str) -> Reference | None:
        """The namespace's reference of the same words as ``question`` (``asked_as``), the
        last recorded; None when there is none."""
        ...

    def count_references(self, namespace: str, since: float = 0.0) -> int:
        """How many references the namespace has, recorded at ``since`` or later."""
        ...

    def recorded_between(self, namespace: str, start: float, end: float) -> dict[str, int]:
        """How many of the namespace's references were recorded at ``start`` or later and
        before ``end``, by source (sources with none left out)."""
        ...

    def reference_namespaces(self) -> list[str]:
        """The namespaces that have references."""
        ...

    def remove_references(self, namespace: str, ids: Sequence[str]) -> int:
        """Remove the namespace's references of ``ids``; returns how many were removed."""
        ...


class Fits(Protocol):
    def add_fit(self, fit: Fit) -> Fit:
        """Keep ``fit`` as the namespace's next version and make it the one applied;
        returns it with its version."""
        ...

    def active_fit(self, namespace: str) -> Fit | None:
        """The fit applied to the namespace; None: the shipped calibration."""
        ...

    def fits(self, namespace: str) -> list[Fit]:
        """Every fit of the namespace, newest first."""
        ...

    def activate_fit(self, namespace: str, version: int) -> Fit | None:
        """Apply the namespace's fit of ``version`` (0: the shipped calibration, no fit);
        returns it; KeyError when the namespace has no such version."""
        ...

    def erase_references(self, namespace: str) -> tuple[int, int]:
        """Remove the namespace's references and fits; returns how many of each."""
        ...
