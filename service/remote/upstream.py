"""The upstream port over HTTP: ``POST /v1/search`` of another service speaking strata's
search contract (the subset docs/reference/api.md names), bounded in time, connections and bytes."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import msgspec

from schemas.vocabulary import RECALL_HEADER, TIERS
from service.domain.entries import Entry
from service.domain.model import UpstreamHit
from service.domain.recall import UpstreamError

MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest answer read from the upstream; a longer one is a failure."""
CONNECTIONS = 8
SNIPPET_CHARS = 300
"""Characters of the text standing for the snippet when the upstream sends none."""


class _Hit(msgspec.Struct, kw_only=True):
    """A search hit as the contract's subset has it: ``id``, ``text`` and ``score`` are
    required; the rest of strata's hit fields are read when present, unknown ones ignored."""

    id: str
    text: str
    score: float
    snippet: str | None = None
    namespace: str | None = None
    tier: str | None = None
    timestamp: str | None = None
    speaker: str | None = None
    role: str | None = None
    chain_type: str | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    kind: str | None = None
    type: str | None = None
    confidence: float | None = None
    thread: str | None = None
    expires_at: str | None = None


class _Answer(msgspec.Struct):
    results: list[_Hit]


_DECODER = msgspec.json.Decoder(_Answer)


class HttpUpstream:
    def __init__(
        self,
        url: str,
        *,
        name: str,
        api_key: str = "",
        http: httpx.Client | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``http``: a client to send through (tests pass one bound to an app in process);
        otherwise one of at most ``CONNECTIONS`` connections to ``url``. ``clock`` dates a
        hit the upstream sends without a time."""
        self.name = name
        self.url = url
        headers = {RECALL_HEADER: "1"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = http or httpx.Client(
            base_url=url,
            limits=httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=2),
            follow_redirects=False,
        )
        self._headers = headers
        self._clock = clock

    def close(self) -> None:
        self._http.close()

    def search(self, namespace: str, query: str, limit: int, timeout: float) -> list[UpstreamHit]:
        deadline = time.monotonic() + timeout
        body = {"query": query, "namespace": namespace, "limit": limit}
        try:
            with self._http.stream(
                "POST", "/v1/search", json=body, headers=self._headers, timeout=timeout
            ) as response:
                content = _read(response, deadline)
        except httpx.TimeoutException:
            raise UpstreamError(f"no answer within {timeout:.2f} s", retryable=True) from None
        except httpx.TransportError as exc:
            raise UpstreamError(
                f"unreachable: {exc or type(exc).__name__}", retryable=True
            ) from None
        if response.status_code != 200:
            status = response.status_code
            detail = content[:200].decode("utf-8", "replace").strip()
            raise UpstreamError(
                f"answered {status} {response.reason_phrase}: {detail}".strip(": "),
                retryable=status >= 500 or status == 429,
            )
        try:
            answer = _DECODER.decode(content)
        except msgspec.DecodeError as exc:
            raise UpstreamError(f"unreadable answer: {exc}", retryable=False) from None
        return [self._hit(h, namespace) for h in answer.results[:limit]]

    def _hit(self, hit: _Hit, namespace: str) -> UpstreamHit:
        timestamp = _time(hit.timestamp) or self._clock()
        entry = Entry(
            id=hit.id,
            namespace=hit.namespace or namespace,
            tier=hit.tier if hit.tier in TIERS else "A",
            text=hit.text,
            timestamp=timestamp,
            speaker=hit.speaker,
            role=hit.role,
            chain_type=hit.chain_type,
            tags=tuple(hit.tags),
            expires_at=_time(hit.expires_at),
            metadata=hit.metadata,
            kind="pattern" if hit.kind == "pattern" else "memory",
            type=hit.type,
            confidence=hit.confidence,
            thread=hit.thread,
        )
        snippet = hit.snippet if hit.snippet is not None else hit.text[:SNIPPET_CHARS]
        return UpstreamHit(entry, snippet, hit.score)


def _read(response: httpx.Response, deadline: float) -> bytes:
    """The body, at most ``MAX_BODY_BYTES``, read before ``deadline`` (a server that sends
    a byte at a time stays within each read's timeout, not within the budget)."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise UpstreamError(f"answer over {MAX_BODY_BYTES} bytes", retryable=False)
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("budget spent reading the answer")
        chunks.append(chunk)
    return b"".join(chunks)


def _time(text: str | None) -> float | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    # Without an offset a time is UTC, as strata's contract says.
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
