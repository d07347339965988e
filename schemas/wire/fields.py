"""Field types the wire types share: ids, namespaces, labels, texts, times, metadata, scores.

Rules the use cases check themselves, with messages of their own, are stated in the JSON
Schema through ``extra_json_schema`` (msgspec states them but does not enforce them), and
rules between fields through a type's ``RULES``: a request the schema allows is never
refused for a rule it does not state.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from schemas.vocabulary import (
    ID_PATTERN,
    LABEL_CHARS,
    MAX_METADATA,
    NAMESPACE_PATTERN,
    TEXT_CHARS,
    VARIANT_CHARS,
)
from schemas.vocabulary import METADATA_VALUE_CHARS as METADATA_VALUE_CHARS

SPACE = r"\t-\r\x1c- \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters ``str.strip`` removes, as a regex class (JSON Schema regexes differ)."""
NOT_BLANK = {"pattern": f"[^{SPACE}]"}

Id = Annotated[str, Meta(pattern=ID_PATTERN, description="Entry id")]
Namespace = Annotated[str, Meta(pattern=NAMESPACE_PATTERN, description="Isolated space of entries")]
Label = Annotated[str, Meta(min_length=1, max_length=LABEL_CHARS)]
Text = Annotated[str, Meta(min_length=1, max_length=TEXT_CHARS, extra_json_schema=NOT_BLANK)]
Question = Annotated[str, Meta(min_length=1, max_length=10_000, extra_json_schema=NOT_BLANK)]
Timestamp = Annotated[
    str,
    Meta(
        description="ISO 8601 (as RFC 3339 date-time); without an offset it is UTC",
        extra_json_schema={"format": "date-time"},
    ),
]
MetadataKey = Annotated[str, Meta(min_length=1, max_length=LABEL_CHARS)]
Scalar = Annotated[str, Meta(max_length=METADATA_VALUE_CHARS)] | int | float | bool | None
Metadata = Annotated[dict[MetadataKey, Scalar], Meta(max_length=MAX_METADATA)]
Score = Annotated[float, Meta(ge=0, le=1)]
Variant = Annotated[str, Meta(min_length=1, max_length=VARIANT_CHARS)]
