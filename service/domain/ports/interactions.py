"""The log of retrieves and the feedback given on them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from service.domain.model import Feedback, Interaction


class NamespaceInteractions(Protocol):
    """A namespace's interactions and feedback, for its export, import and erasure."""

    def interaction_page(
        self, namespace: str, after: int, limit: int
    ) -> list[tuple[int, Interaction]]:
        """Interactions logged after the one numbered ``after`` (0: from the first), at most
        ``limit``, in the order logged, each with its number."""
        ...

    def feedback_page(self, namespace: str, after: int, limit: int) -> list[tuple[int, Feedback]]:
        """Feedback on the namespace's interactions given after the one numbered ``after``,
        at most ``limit``, in the order given, each with its number."""
        ...

    def counted(self, namespace: str) -> tuple[int, int]:
        """Interactions and feedback the namespace has."""
        ...

    def restore(self, interactions: Sequence[Interaction], feedback: Sequence[Feedback]) -> int:
        """Log the interactions whose id is not logged yet and the feedback not given yet
        (the same interaction, time, rating, comment and actor), in order; returns how
        many rows were added."""
        ...

    def erase(self, namespace: str) -> tuple[int, int]:
        """Remove the namespace's interactions and the feedback on them; returns how many
        of each."""
        ...


class InteractionLog(NamespaceInteractions, Protocol):
    """Every retrieve, and the feedback given on it."""

    def record(self, interaction: Interaction) -> None: ...

    def get(self, interaction_id: str) -> Interaction | None: ...

    def add_feedback(self, feedback: Feedback) -> None: ...

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        """Interactions asked, and feedback given, in ``[start, end)``, oldest first."""
        ...
