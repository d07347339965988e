"""Reference questions: recorded by an agent, an admin, the console or feedback; listed and
removed. A sweep (``service.application.calibrations``) asks them."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass

from service.application.auth import Principal
from service.application.inputs import not_blank
from service.domain.entries import entry_key
from service.domain.model import Interaction
from service.domain.model.references import Reference, ReferenceSource
from service.domain.ports import Entries, References
from service.errors import FieldError, InvalidInput, NotFound

MOST_LISTED = 1000


@dataclass(frozen=True)
class Listed:
    references: list[Reference]
    total: int


@dataclass(eq=False)
class ReferenceUseCases:
    references: References
    entries: Entries
    _: KW_ONLY
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = lambda: uuid.uuid4().hex[:16]

    def record(
        self,
        principal: Principal,
        question: str,
        answers: Sequence[str],
        nothing: bool,
        namespace: str | None,
        *,
        source: ReferenceSource | None = None,
    ) -> Reference:
        """Keep a reference question of a namespace the caller may use: the entries that
        answer it, or that nothing does; InvalidInput naming what is wrong."""
        name = principal.namespace(namespace)
        reference = self.checked(principal, question, answers, nothing, name, source)
        self.references.add_references([reference])
        return reference

    def checked(
        self,
        principal: Principal,
        question: str,
        answers: Sequence[str],
        nothing: bool,
        namespace: str,
        source: ReferenceSource | None = None,
        field: str = "answers",
    ) -> Reference:
        """The reference the request makes, not yet kept; InvalidInput naming what is
        wrong (``field``: what the request calls the answers)."""
        not_blank(question, "question")
        if bool(answers) == nothing:
            raise InvalidInput(
                [
                    FieldError(
                        field,
                        "name the entries that answer the question, or say nothing does "
                        "(nothing: true), one of the two",
                    )
                ]
            )
        unique = list(dict.fromkeys(answers))
        held = self.entries.get([entry_key(namespace, i) for i in unique])
        missing = [
            FieldError(f"{field}[{n}]", f"{i!r} is no entry of namespace {namespace!r}")
            for n, i in enumerate(answers)
            if entry_key(namespace, i) not in held
        ]
        if missing:
            raise InvalidInput(missing)
        return Reference(
            namespace,
            self.new_id(),
            question.strip(),
            tuple(unique),
            source or ("admin" if principal.role == "admin" else "agent"),
            principal.name,
            self.clock(),
        )

    def of_feedback(
        self,
        principal: Principal,
        interaction: Interaction,
        answers: Sequence[str],
        nothing: bool,
    ) -> Reference:
        """The reference a piece of feedback on ``interaction`` makes, not yet kept."""
        return self.checked(
            principal, interaction.question, answers, nothing, interaction.namespace, "feedback"
        )

    def keep(self, reference: Reference) -> None:
        self.references.add_references([reference])

    def recorded(self, namespace: str, start: float, end: float) -> tuple[dict[str, int], int]:
        """The namespace's references recorded from ``start`` until ``end``, by source, and
        how many it holds as ``end`` comes (those kept still)."""
        kept = self.references
        by_source = kept.recorded_between(namespace, start, end)
        return by_source, kept.count_references(namespace) - kept.count_references(namespace, end)

    def listed(
        self, principal: Principal, namespace: str | None, offset: int, limit: int
    ) -> Listed:
        name = principal.namespace(namespace)
        return Listed(
            self.references.references(name, offset, min(limit, MOST_LISTED)),
            self.references.count_references(name),
        )

    def remove(self, principal: Principal, namespace: str | None, reference_id: str) -> None:
        """Remove a reference question (admin keys)."""
        principal.require_admin()
        name = principal.namespace(namespace)
        if not self.references.remove_references(name, [reference_id]):
            raise NotFound(f"namespace {name!r} has no reference {reference_id!r}")
