"""What the clients send: only the fields given."""

from __future__ import annotations

from service.remote.client import feedback_body


def test_feedback_sends_what_is_given_and_nothing_else() -> None:
    assert feedback_body("i1", "up", None, None, False) == {"interaction_id": "i1", "rating": "up"}
    assert feedback_body("i1", "down", "no", ("a", "b"), False) == {
        "interaction_id": "i1",
        "rating": "down",
        "comment": "no",
        "answers": ["a", "b"],
    }
    assert feedback_body("i1", "down", None, None, True) == {
        "interaction_id": "i1",
        "rating": "down",
        "nothing": True,
    }
