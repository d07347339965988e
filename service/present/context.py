"""Context blocks as the wire types of ``schemas.wire.context``."""

from __future__ import annotations

from schemas import wire
from service.application.context import Contextualised
from service.domain.answers.context import Included
from service.present.times import format_time


def context_out(made: Contextualised) -> wire.ContextResponse:
    block, answer = made.block, made.answer
    return wire.ContextResponse(
        interaction_id=answer.interaction_id,
        context=block.text,
        tokens=block.tokens,
        max_tokens=made.max_tokens,
        entries=[context_item(i) for i in block.entries],
        reasoning_patterns=[context_item(i) for i in block.patterns],
        left_out=block.left_out,
        nothing_relevant=block.nothing_relevant,
        strong_match=answer.strong_match,
        answer_confidence=answer.confidence,
        took_ms=answer.took_ms,
        degraded=made.degraded,
    )


def context_item(item: Included) -> wire.ContextItem:
    source = item.source
    return wire.ContextItem(
        id=source.id,
        tier=source.tier,
        timestamp=format_time(source.timestamp) or "",
        citation=item.citation,
        text=item.text,
        score=source.score,
        speaker=source.speaker,
        type=source.type,
        cut=item.cut,
        replaces=list(source.replaces),
        folded=list(item.folded),
    )
