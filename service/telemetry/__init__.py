"""What the service tells its operators: Prometheus metrics, OpenTelemetry traces and
request-scoped logs. Adapters, like the stores: the domain never imports them."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.telemetry.metrics import Metrics
from service.telemetry.tracing import OFF, Tracing


@dataclass(frozen=True)
class Telemetry:
    """The metrics (None: off) and the tracing of one service."""

    metrics: Metrics | None = None
    tracing: Tracing = field(default=OFF)


NONE = Telemetry()
"""No metrics, no spans."""
