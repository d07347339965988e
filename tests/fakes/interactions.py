"""An in-memory interaction log."""

from __future__ import annotations

from service.domain.interactions import Feedback, Interaction


class FakeInteractionLog:
    """Interactions by id and the feedback on them, in the order given."""

    def __init__(self) -> None:
        self.interactions: dict[str, Interaction] = {}
        self.feedback: list[Feedback] = []

    def record(self, interaction: Interaction) -> None:
        if interaction.id in self.interactions:
            raise ValueError(f"interaction {interaction.id!r} is already recorded")
        self.interactions[interaction.id] = interaction

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
