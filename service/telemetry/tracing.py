"""OpenTelemetry traces: off unless an OTLP endpoint is configured with the standard
variables (``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, with
``OTEL_EXPORTER_OTLP_PROTOCOL``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_SERVICE_NAME``...).

A request is a span (continuing the caller's ``traceparent``), each use case within it a
span named by the GenAI memory conventions (``search_memory``, ``create_memory``,
``update_memory``, ``delete_memory``), and each engine call within that a span of its own.
The MCP SDK's span of a tool call (continuing ``_meta.traceparent``) holds the use case's.
Query text and record contents go into spans only when STRATA_TRACE_CONTENT is on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Tracer

from service.errors import ConfigError

log = logging.getLogger("strata")

TRACER = "strata"
PROVIDER = "strata"
PROTOCOLS = ("http/protobuf", "grpc")


def start_tracing(environ: Mapping[str, str], replica: str, version: str) -> Any | None:
    """Export spans as the environment says, through a tracer provider made the process's
    own; None when no endpoint is configured (tracing off: nothing is recorded). The
    caller shuts the returned provider down at exit, which sends what is left."""
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    disabled = environ.get("OTEL_SDK_DISABLED", "").lower() == "true"
    if not endpoint or disabled or environ.get("OTEL_TRACES_EXPORTER", "otlp") == "none":
        return None
    protocol = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    )
    if protocol not in PROTOCOLS:
        raise ConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL: expected one of {', '.join(PROTOCOLS)}, got {protocol!r}"
        )
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[assignment]
            OTLPSpanExporter,
        )
    resource = Resource.create(
        {
            "service.name": environ.get("OTEL_SERVICE_NAME") or "strata",
            "service.version": version,
            "service.instance.id": replica,
        }
    )
    provider = TracerProvider(resource=resource)
    # The exporter reads its endpoint, headers and timeout from the same variables.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    log.info("tracing to %s over %s", endpoint, protocol)
    return provider


def current_tracer() -> Tracer | None:
    """The process's tracer when tracing is on, else None (nothing to record)."""
    from opentelemetry.sdk.trace import TracerProvider

    provider = trace.get_tracer_provider()
    return provider.get_tracer(TRACER) if isinstance(provider, TracerProvider) else None


class Tracing:
    """Spans of use cases, following the GenAI memory conventions; every method does
    nothing when tracing is off."""

    def __init__(self, tracer: Tracer | None = None, *, content: bool = False) -> None:
        self.tracer = tracer
        self.content = content
        """Whether query text and record contents go into spans."""

    @contextmanager
    def memory(
        self,
        operation: str,
        namespace: str,
        *,
        query: str | None = None,
        record_id: str | None = None,
    ) -> Iterator[Span | None]:
        """A span of one memory operation on ``namespace`` (the memory store)."""
        if self.tracer is None:
            yield None
            return
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.memory.store.id": namespace,
        }
        if record_id is not None:
            attributes["gen_ai.memory.record.id"] = record_id
        if query is not None and self.content:
            attributes["gen_ai.memory.query.text"] = query
        with self.tracer.start_as_current_span(
            f"{operation} {namespace}", kind=SpanKind.INTERNAL, attributes=attributes
        ) as span:
            yield span

    def records(self, span: Span | None, records: Sequence[Mapping[str, Any]]) -> None:
        """What the operation read or wrote: their count, and their contents when allowed."""
        if span is None:
            return
        span.set_attribute("gen_ai.memory.record.count", len(records))
        if self.content:
            span.set_attribute("gen_ai.memory.records", json.dumps(list(records), default=str))


OFF = Tracing()
"""No spans."""
