"""Engine calls timed, counted and traced: each store is wrapped once where the service is
assembled, so every caller's calls are seen without the callers knowing."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from time import perf_counter
from typing import Any, TypeVar

from opentelemetry.trace import SpanKind, Tracer

from service.domain.errors import EngineUnavailable
from service.lib.engines import Engines
from service.telemetry.metrics import Metrics

T = TypeVar("T")

MODEL_ATTRIBUTES = {"gen_ai.operation.name": "embeddings", "gen_ai.provider.name": "strata"}


def instrumented(
    store: T, engine: str, metrics: Metrics | None, engines: Engines, tracer: Tracer | None
) -> T:
    """``store`` with each public method's calls timed (``metrics``), traced (``tracer``) and
    their outcome told to ``engines``; the store itself when neither is on."""
    if metrics is None and tracer is None:
        return store
    return Instrumented(store, engine, metrics, engines, tracer)  # type: ignore[return-value]


class Instrumented:
    """A store whose public methods are wrapped on first use; other attributes pass through."""

    def __init__(
        self,
        store: Any,
        engine: str,
        metrics: Metrics | None,
        engines: Engines,
        tracer: Tracer | None,
    ) -> None:
        self._store = store
        self._engine = engine
        self._metrics = metrics
        self._engines = engines
        self._tracer = tracer

    @property
    def wrapped(self) -> Any:
        """The store itself."""
        return self._store

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if name.startswith("_") or not callable(value) or isinstance(value, type):
            return value
        call = self._wrap(name, value)
        self.__dict__[name] = call  # wrapped once: later calls find it directly
        return call

    def _wrap(self, operation: str, method: Callable[..., Any]) -> Callable[..., Any]:
        # The method is looked up on each call, so the proxy never holds a stale bound method.
        store = self._store
        engine, metrics, engines, tracer = self._engine, self._metrics, self._engines, self._tracer
        span_name = f"{engine} {operation}"
        attributes: dict[str, str] = {"strata.engine": engine, "strata.operation": operation}
        if engine == "model":
            attributes.update(MODEL_ATTRIBUTES)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = perf_counter()
            try:
                result = getattr(store, operation)(*args, **kwargs)
            except EngineUnavailable as exc:
                engines.failed(exc.engine, exc.detail)
                if metrics is not None:
                    metrics.engine_failed(engine)
                raise
            engines.answered(engine)
            if metrics is not None:
                metrics.engine_call(engine, operation, perf_counter() - started)
            return result

        if tracer is None:
            return wraps(method)(timed)

        def traced(*args: Any, **kwargs: Any) -> Any:
            with tracer.start_as_current_span(
                span_name, kind=SpanKind.CLIENT, attributes=attributes
            ):
                return timed(*args, **kwargs)

        return wraps(method)(traced)
