"""What a question asks for, read from its words: whether it asks what was decided.

"What did we decide about the ledger database?" asks for a decision, and a decision that
answers it should come before the log lines and discussions that name the same things, even
where those match the words better (a short log line naming component, aspect and option
outscores a decision's sentence on BM25). The cue is a word of deciding, and a decision is
an entry recorded with type ``decision``; a question without the cue is ranked by relevance
alone.
"""

from __future__ import annotations

import re

from service.domain.models import Entry

DECISION_CUES = frozenset(
    {
        "decide", "decided", "decides", "deciding", "decision", "decisions",
        "chose", "chosen", "choose", "agreed", "adr", "adrs",
    }
)  # fmt: skip
"""Words that make a question one about decisions."""
WORD = re.compile(r"[a-z]+")


def asks_for_decision(question: str) -> bool:
    """Whether the question names deciding (``DECISION_CUES``)."""
    return not DECISION_CUES.isdisjoint(WORD.findall(question.lower()))


def is_decision(entry: Entry) -> bool:
    """Recorded as a decision (of type ``decision``). A tier A entry without a type is not
    taken for one: tier A holds durable facts too, and raising those for a question worded
    with "decide" ("why did Jon decide to open a studio?") sank the turns holding the answer
    on locomo-tiers-dev (R@10 0.662 against 0.667)."""
    return entry.type == "decision"


def with_odds(probability: float, odds: float) -> float:
    """``probability`` with its odds multiplied by ``odds``: still in [0, 1], and in the
    same order for every candidate it is applied to."""
    p = min(max(probability, 0.0), 1.0)
    return p * odds / (p * odds + 1.0 - p)
