"""Path and query parameters with the rules they must meet, checked by the framework (422
naming the parameter) and stated in the OpenAPI document as they are checked; and the
request itself, as handlers and hooks name it."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from litestar import Request
from litestar.params import PathParameter, QueryParameter

from service.domain.entries import ID_PATTERN, NAMESPACE_PATTERN

LINE_LIMIT = 1_000_000_000
"""Highest line number a document request may name."""

AnyRequest = Request[Any, Any, Any]
"""A request, whoever sent it: what a handler, hook or dependency is given as ``request``."""

EntryId = Annotated[str, PathParameter(pattern=ID_PATTERN, description="Entry id")]
CollectionName = Annotated[str, PathParameter(pattern=NAMESPACE_PATTERN)]
Namespace = Annotated[
    str | None,
    QueryParameter(pattern=NAMESPACE_PATTERN, description="Default: the key's only namespace"),
]
CollectionNamespace = Annotated[
    str | None,
    QueryParameter(
        name="namespace",
        pattern=NAMESPACE_PATTERN,
        description="The collection's namespace (names are unique per namespace); default: "
        "the one of the key's namespaces that holds a collection of that name",
    ),
]
Day = Annotated[date | None, QueryParameter(name="date", description="A UTC day; default: today")]
DocumentPath = Annotated[
    str,
    QueryParameter(
        pattern=r"^(strata://)?[A-Za-z0-9_.-]{1,64}/.",
        description="`<collection>/<relative path>`, optionally after `strata://`",
    ),
]
FirstLine = Annotated[
    int, QueryParameter(name="from", ge=1, le=LINE_LIMIT, description="First line, from 1")
]
LineCount = Annotated[
    int | None, QueryParameter(ge=1, le=LINE_LIMIT, description="Lines to return; default all")
]
NamespaceName = Annotated[str, PathParameter(pattern=NAMESPACE_PATTERN, description="Namespace")]
