"""The cross-encoder a load run's ``hybrid+rerank`` searches are served with."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import httpx

from bench.common import OUT_DIR
from bench.server import service_settings

CROSS_ENCODER_DIR = OUT_DIR / "cross-encoder-minilm-l6-random"
RERANKER_WAIT_S = 300.0


def resolve_reranker(args: argparse.Namespace) -> tuple[str | None, str]:
    """The STRATA_RERANKER_MODEL to serve with (None: leave it) and what it is."""
    if args.reranker_model:
        return args.reranker_model, f"{args.reranker_model} (--reranker-model)"
    if "STRATA_RERANKER_MODEL" in os.environ:
        return None, f"{os.environ['STRATA_RERANKER_MODEL']} (STRATA_RERANKER_MODEL)"
    default = service_settings().models.reranker_model
    with contextlib.suppress(Exception):
        from huggingface_hub import try_to_load_from_cache

        if Path(default).exists() or isinstance(
            try_to_load_from_cache(default, "config.json"), str
        ):
            return None, f"{default} (real weights)"
    if not (CROSS_ENCODER_DIR / "config.json").exists():
        print(f"building a random-weight cross-encoder in {CROSS_ENCODER_DIR}", file=sys.stderr)
        from bench.build_cross_encoder import build

        build(CROSS_ENCODER_DIR)
    return str(CROSS_ENCODER_DIR), (
        "random-weight cross-encoder of ms-marco-MiniLM-L-6-v2's size "
        "(bench/build_cross_encoder.py): real cost, meaningless ranking"
    )


def wait_for_reranker(client: httpx.Client) -> str | None:
    """The reranker's name once the service has loaded it; None if it will not load."""
    deadline = time.monotonic() + RERANKER_WAIT_S
    while time.monotonic() < deadline:
        body = client.get("/health").json()
        if body.get("reranker"):
            return str(body["reranker"])
        if any("reranker" in str(d) for d in body.get("degraded") or []):
            return None
        time.sleep(1.0)
    return None
