"""What operators see: metrics, logs and traces."""

from __future__ import annotations

from typing import Literal

from service.settings.base import Group, Switch


class TelemetrySettings(Group, frozen=True):
    metrics: Switch = "on"
    """``GET /metrics`` in the Prometheus text format (OpenMetrics when asked): open on
    loopback without API keys; with keys, for admin keys and STRATA_METRICS_TOKEN."""
    metrics_token: str = ""
    """A bearer token that may read ``/metrics`` and nothing else (for a scraper that should
    not hold an admin key); empty: none."""
    log_format: Literal["text", "json"] = "text"
    """Log lines as text, or as one JSON object per line; each carries its request's id."""
    trace_content: Switch = "off"
    """Put query text and record contents into trace spans (``gen_ai.memory.query.text``,
    ``gen_ai.memory.records``). Tracing itself is on when OTEL_EXPORTER_OTLP_ENDPOINT is set."""
