"""The service's side: a throw-away service ingests the set over HTTP, then each mode's
questions are searched one at a time, the service started afresh before every pass."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import REQUEST_TIMEOUT_S, search_fields
from bench.quality.runs import ModeRun, ingest, run_queries
from bench.quality.servers import BASE, Served
from bench.quality.sets import Dataset

PREFIX = "side"
"""Namespace prefix of the set's conversations in the service."""
WARMUP = 3
"""Uncounted searches before each pass, in a namespace holding nothing (as every system
gets): a new process's first calls are slow."""


HITS: dict[str, list[str] | None] = {"ids": [], "whole": None}
"""What each hit carries, by name: ``ids``, its id and score alone (``fields: []``), as the
peers are asked for ids (and scores); ``whole``, every field (the default)."""


def warm_up(client: httpx.Client, mode: str, limit: int, fields: list[str] | None) -> None:
    for n in range(WARMUP):
        body: dict[str, Any] = {"query": f"warm up {n}", "namespace": f"{PREFIX}-warmup"}
        if fields is not None:
            body["fields"] = fields
        client.post("/v1/search", json={**body, **search_fields(mode, limit)})


def label(mode: str, hits: str) -> str:
    """A pass's row: ``hybrid`` for ids and scores, as the peers answer; else ``hybrid,
    whole hits``."""
    return mode if hits == "ids" else f"{mode}, {hits} hits"


def run_strata(
    data: Dataset,
    modes: Sequence[str],
    limits: Sequence[int],
    tier: str,
    root: Path,
    hits: Sequence[str] = tuple(HITS),
) -> tuple[float, dict[str, dict[int, ModeRun]]]:
    """Ingest seconds, and per mode (and what each hit carries, ``label``) and limit the
    pass's rankings and latencies."""
    served = Served(BASE, None, root)
    runs: dict[str, dict[int, ModeRun]] = {}
    try:
        served.fresh()
        with httpx.Client(base_url=served.url, timeout=REQUEST_TIMEOUT_S) as client:
            ingest_s = ingest(client, data.docs, tier, PREFIX, batch=256, name=data.name)
        for mode, limit, carried in itertools.product(modes, limits, hits):
            fields = HITS[carried]
            # A fresh process: no query vector cached by an earlier pass.
            served.fresh()
            with httpx.Client(base_url=served.url, timeout=REQUEST_TIMEOUT_S) as client:
                warm_up(client, mode, limit, fields)
                run = run_queries(
                    client, data.queries, mode, PREFIX, data.id_map, limit=limit, fields=fields
                )
            runs.setdefault(label(mode, carried), {})[limit] = run
            print(f"  strata {label(mode, carried)} @{limit}: searched", file=sys.stderr)
    finally:
        served.stop()
    return ingest_s, runs
