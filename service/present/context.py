"""Context blocks as the wire types of ``schemas.wire.context``."""

from __future__ import annotations

from schemas import wire
from service.application.context import Contextualised
from service.domain.answers.context import Included
from service.lib.fields import fields_of
from service.present.search import calibration_out
from service.present.times import format_time


def context_out(made: Contextualised) -> wire.ContextResponse:
    block, answer = made.block, made.answer
    return wire.ContextResponse(
        **fields_of(block, "tokens", "left_out", "nothing_relevant"),
        **fields_of(answer, "interaction_id", "strong_match", "took_ms"),
        **fields_of(made, "max_tokens", "degraded"),
        context=block.text,
        entries=[context_item(i) for i in block.entries],
        reasoning_patterns=[context_item(i) for i in block.patterns],
        answer_confidence=answer.confidence,
        calibration=calibration_out(answer.tuning),
        reference_id=answer.reference,
    )


def context_item(item: Included) -> wire.ContextItem:
    source = item.source
    return wire.ContextItem(
        **fields_of(source, "id", "tier", "score", "speaker", "type"),
        **fields_of(item, "citation", "text", "cut"),
        timestamp=format_time(source.timestamp) or "",
        replaces=list(source.replaces),
        folded=list(item.folded),
    )
