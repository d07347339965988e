"""An in-memory interaction log."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.model import Feedback, Interaction


class FakeInteractionLog:
    """Interactions by id and the feedback on them, in the order given."""

    def __init__(self) -> None:
        self.interactions: dict[str, Interaction] = {}
        self.feedback: list[Feedback] = []
        self.numbers: dict[str, int] = {}
        """The order each interaction was logged in, from 1 (a feedback's is its place)."""
        self.logged = 0

    def record(self, interaction: Interaction) -> None:
        if interaction.id in self.interactions:
            raise ValueError(f"interaction {interaction.id!r} is already recorded")
        self.interactions[interaction.id] = interaction
        self.logged += 1
        self.numbers[interaction.id] = self.logged

    def get(self, interaction_id: str) -> Interaction | None:
        return self.interactions.get(interaction_id)

    def add_feedback(self, feedback: Feedback) -> None:
        if feedback.interaction_id not in self.interactions:
            raise ValueError(f"no interaction {feedback.interaction_id!r}")
        self.feedback.append(feedback)

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        asked = sorted(
            (
                i
                for i in self.interactions.values()
                if i.namespace == namespace and start <= i.at < end
            ),
            key=lambda i: i.at,
        )
        ids = {i.id for i in asked}
        given = sorted((f for f in self.feedback if f.interaction_id in ids), key=lambda f: f.at)
        return asked, given

    def interaction_page(
        self, namespace: str, after: int, limit: int
    ) -> list[tuple[int, Interaction]]:
        found = sorted(
            (self.numbers[i.id], i)
            for i in self.interactions.values()
            if i.namespace == namespace and self.numbers[i.id] > after
        )
        return [(n, i) for n, i in found][:limit]

    def feedback_page(self, namespace: str, after: int, limit: int) -> list[tuple[int, Feedback]]:
        found = [
            (n, f)
            for n, f in enumerate(self.feedback, start=1)
            if n > after and self.interactions[f.interaction_id].namespace == namespace
        ]
        return found[:limit]

    def counted(self, namespace: str) -> tuple[int, int]:
        return len(self.interaction_page(namespace, 0, 10**9)), len(
            self.feedback_page(namespace, 0, 10**9)
        )

    def restore(self, interactions: Sequence[Interaction], feedback: Sequence[Feedback]) -> int:
        added = 0
        for i in interactions:
            if i.id not in self.interactions:
                self.record(i)
                added += 1
        for f in feedback:
            if f not in self.feedback:
                self.add_feedback(f)
                added += 1
        return added

    def erase(self, namespace: str) -> tuple[int, int]:
        mine = {i.id for i in self.interactions.values() if i.namespace == namespace}
        kept = [f for f in self.feedback if f.interaction_id not in mine]
        given = len(self.feedback) - len(kept)
        self.feedback = kept
        for key in mine:
            del self.interactions[key]
        return len(mine), given
