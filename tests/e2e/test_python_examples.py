"""The Python examples of the README and the clients' page, run as written against the real
server process: each block that opens a ``StrataClient`` runs in a fresh interpreter, its
``127.0.0.1:8080`` pointed at a server of its own, and must finish without an error, printing
what it prints with the answer the example is about."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_server import Server
from tests.readme import ROOT, fenced_blocks

PAGES = ("README.md", "docs/guide/clients.md")
OPENS_A_CLIENT = "from service.remote.client import StrataClient"


def client_examples() -> list[tuple[str, str]]:
    return [
        (page, block.text)
        for page in PAGES
        for block in fenced_blocks((ROOT / page).read_text())
        if block.language == "python" and block.text.startswith(OPENS_A_CLIENT)
    ]


@pytest.mark.parametrize(("page", "code"), client_examples())
def test_a_client_example_runs_as_written(page: str, code: str, tmp_path: Path) -> None:
    server = Server(tmp_path / "data", {"STRATA_JOBS": "off"})
    try:
        ran = subprocess.run(
            [sys.executable, "-c", code.replace("http://127.0.0.1:8080", server.url)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
    assert ran.returncode == 0, f"{page}: {ran.stderr}"
    if "We chose Postgres for billing." in code:
        # The entry is what the question about billing's database finds.
        assert ran.stdout.rstrip().endswith("We chose Postgres for billing."), ran.stdout


def test_the_pages_have_client_examples() -> None:
    assert {page for page, _ in client_examples()} == set(PAGES)
