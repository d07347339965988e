"""Reference questions and sweep fits, in memory, as ``SqlReferences`` keeps them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from service.domain.model.references import Fit, Reference, asked_as
from tests.fakes.ledger.state import LedgerState


class FakeReferences(LedgerState):
    def add_references(self, found: Sequence[Reference]) -> int:
        added = 0
        for x in found:
            kept = self.kept_references.setdefault(x.namespace, {})
            if x.id not in kept:
                kept[x.id] = x
                added += 1
        return added

    def references(self, namespace: str, offset: int = 0, limit: int = 1000) -> list[Reference]:
        return list(self.kept_references.get(namespace, {}).values())[offset : offset + limit]

    def reference_asking(self, namespace: str, question: str) -> Reference | None:
        kept = self.kept_references.get(namespace, {}).values()
        same = [x for x in kept if asked_as(x.question) == asked_as(question)]
        return same[-1] if same else None

    def count_references(self, namespace: str, since: float = 0.0) -> int:
        return sum(1 for x in self.kept_references.get(namespace, {}).values() if x.at >= since)

    def recorded_between(self, namespace: str, start: float, end: float) -> dict[str, int]:
        kept = self.kept_references.get(namespace, {}).values()
        return dict(Counter(x.source for x in kept if start <= x.at < end))

    def reference_namespaces(self) -> list[str]:
        return sorted(ns for ns, kept in self.kept_references.items() if kept)

    def remove_references(self, namespace: str, ids: Sequence[str]) -> int:
        kept = self.kept_references.get(namespace, {})
        return sum(1 for i in set(ids) if kept.pop(i, None) is not None)

    def add_fit(self, fit: Fit) -> Fit:
        made = self.kept_fits.setdefault(fit.namespace, [])
        kept = replace(fit, version=len(made) + 1)
        made.append(kept)
        self.fit_in_force[fit.namespace] = kept.version
        return kept

    def active_fit(self, namespace: str) -> Fit | None:
        version = self.fit_in_force.get(namespace, 0)
        return self.kept_fits[namespace][version - 1] if version else None

    def fits(self, namespace: str) -> list[Fit]:
        return list(reversed(self.kept_fits.get(namespace, [])))

    def activate_fit(self, namespace: str, version: int) -> Fit | None:
        made = self.kept_fits.get(namespace, [])
        if version != 0 and not 1 <= version <= len(made):
            raise KeyError(version)
        self.fit_in_force[namespace] = version
        return made[version - 1] if version else None

    def erase_references(self, namespace: str) -> tuple[int, int]:
        removed = len(self.kept_references.pop(namespace, {}))
        dropped = len(self.kept_fits.pop(namespace, []))
        self.fit_in_force.pop(namespace, None)
        return removed, dropped
