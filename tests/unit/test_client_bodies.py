"""What the clients send: only the fields given."""

from __future__ import annotations

import inspect

from service.remote.aio import AsyncStrataClient
from service.remote.client import StrataClient, feedback_body


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


ASYNC_ONLY = {"aclose"}


def test_each_async_method_is_the_synchronous_one_awaited() -> None:
    """Same name, parameters and answer type: a reader of one client knows the other."""
    for name, method in vars(AsyncStrataClient).items():
        if name.startswith("_") or name in ASYNC_ONLY:
            continue
        twin = getattr(StrataClient, name, None)
        assert twin is not None, f"StrataClient has no {name}"
        assert inspect.signature(method) == inspect.signature(twin), name
