"""Helpers every benchmark shares: figures, the machine, search requests, JSON and plots."""

from __future__ import annotations

import json
import math
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
"""Where benchmark artefacts that outlive a run are kept (ignored by git)."""
REQUEST_TIMEOUT_S = 300.0


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100, linear interpolation); NaN for no values."""
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=float), q))


def machine_info() -> dict[str, Any]:
    return {"platform": platform.platform(), "cpu_count": os.cpu_count()}


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by None, for strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def write_json(path: Path, doc: Any) -> None:
    """``doc`` as strict JSON (NaN and infinities as null) in ``path``, said on stderr."""
    path.write_text(json.dumps(finite(doc), indent=2, allow_nan=False) + "\n")
    print(f"wrote {path}", file=sys.stderr)


def admin_key_env(api_key: str) -> dict[str, str]:
    """The service's variables for one admin key ``api_key``, with the admin role's limits
    off: a benchmark measures the service, not the limits that keep one key from crowding
    out others."""
    return {
        "STRATA_API_KEYS": f"{api_key}=admin",
        "STRATA_REQUESTS_PER_SECOND": '{"admin": 0}',
        "STRATA_REQUESTS_IN_FLIGHT": '{"admin": 0}',
        "STRATA_CHUNKS_EMBEDDED_PER_MINUTE": '{"admin": 0}',
    }


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``Authorization: Bearer KEY`` when there is a key."""
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def search_fields(mode: str, limit: int) -> dict[str, Any]:
    """The ``POST /v1/search`` fields of a benchmark mode besides ``query`` and ``namespace``.

    ``default`` is the search as an agent asks it, the service choosing everything (mode
    auto, every tier, its reranking default): ``limit`` alone. ``hybrid+rerank`` is hybrid
    search with the cross-encoder pass; the other modes set ``mode`` and turn reranking off.
    """
    if mode == "default":
        return {"limit": limit}
    return {
        "mode": mode.removesuffix("+rerank"),
        "rerank": mode.endswith("+rerank"),
        "limit": limit,
    }


def tree_bytes(path: Path | None) -> int | None:
    """Disk use of a directory (allocated blocks, as du); None when it does not exist."""
    if path is None or not path.exists():
        return None
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def pyplot() -> Any:
    """matplotlib's ``pyplot`` drawing to files, or None (said on stderr) when not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no plot", file=sys.stderr)
        return None
    return plt
