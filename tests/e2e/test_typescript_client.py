"""The TypeScript client (clients/typescript) against the real server: its tests, run by
Node's test runner after `npm ci` installs the pinned compiler, must all pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_server import Server

CLIENT = Path(__file__).parents[2] / "clients" / "typescript"
ADMIN = "admin-key-0123456789"
AGENT = "alice-key-0123456789"
BURST = "alice-burst-key-0123"


def npm(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npm", *args],
        cwd=CLIENT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def notes(folder: Path) -> Path:
    (folder / "adr").mkdir(parents=True)
    (folder / "deploys.md").write_text("# Deploys\n\nDeploys go out on Thursdays.\n")
    (folder / "adr" / "007.md").write_text("# ADR 7\n\nServices talk over gRPC, not REST.\n")
    return folder


@pytest.mark.slow
def test_the_typescript_client_passes_its_tests_against_the_server(tmp_path: Path) -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"install {' and '.join(missing)} (scripts/system-packages does)"
    installed = npm("ci", "--no-audit", "--no-fund")
    assert installed.returncode == 0, installed.stdout + installed.stderr

    folder = notes(tmp_path / "notes")
    keys = f"{ADMIN}=admin;{AGENT}=agent:alice;{BURST}=agent:alice"
    server = Server(
        tmp_path / "data", {"STRATA_API_KEYS": keys, "STRATA_COLLECTION_ROOTS": str(folder)}
    )
    try:
        done = npm(
            "test",
            env={
                "STRATA_TEST_URL": server.url,
                "STRATA_TEST_ADMIN_KEY": ADMIN,
                "STRATA_TEST_AGENT_KEY": AGENT,
                "STRATA_TEST_BURST_KEY": BURST,
                "STRATA_TEST_NOTES": str(folder),
            },
        )
    finally:
        server.stop()
    report = done.stdout[-20000:] + done.stderr[-5000:]
    assert done.returncode == 0, report
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.MULTILINE)
    assert passed and int(passed.group(1)) >= 10, report
    assert re.search(r"^# fail 0$", done.stdout, re.MULTILINE), report
