"""The OpenAPI document is true: Schemathesis, run against the real server with every check,
finds no request the document allows that the service refuses, none it forbids that the
service takes, no answer the document does not describe, and no server error."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import BIN
from tests.e2e.test_server import Server

ADMIN = "admin-key-0123456789"
AGENT = "agent-key-0123456789"
SEED = 1
EXAMPLES = 100
"""Generated cases per operation and phase: each run takes a minute or so on 2 cores."""

DATA_RULES = (
    # Registering a collection reads a folder of the server's disk: only folders inside
    # STRATA_COLLECTION_ROOTS (the one the test registers itself) may be read, so a generated
    # path ("/", "~/x", a name too long) is refused with 422 naming it; the name of the
    # registered one is taken (409).
    "POST /v1/collections",
    # Promoted ids must name existing tier C entries (422 naming each id otherwise).
    "POST /v1/admin/promote",
    # A reference question names entries the namespace holds (422 naming each id otherwise),
    # and either names some or says nothing answers it (422 naming `answers` otherwise); so
    # does feedback that makes one.
    "POST /v1/references",
    "POST /v1/feedback",
    # Rules between fields JSON Schema cannot state: the ids of one batch differ (per
    # namespace).
    "POST /v1/events",
    # A search's `since` is not after its `until`; times (`since`, `until`, `as_of`) lie
    # between 1970-01-01 and 9999-12-31 (422 naming the field otherwise).
    "POST /v1/search",
    # An erasure's `confirm` repeats the namespace of the path (422 naming `confirm`
    # otherwise).
    "DELETE /v1/namespaces/{namespace}",
    # An import's body is an export file: JSON Lines from a header to an end line counting
    # the lines between, which the document can only name as a string of JSON Lines.
    "POST /v1/namespaces/{namespace}/import",
    # `as_of` lies between 1970-01-01 and 9999-12-31 (422 naming it otherwise).
    "POST /v1/retrieve",
    # The filters of a search, with its rules: `since` is not after `until`; times lie
    # between 1970-01-01 and 9999-12-31 (422 naming the field otherwise).
    "POST /v1/context",
    # The deployment's calibration names no namespace (422 naming `deployment` otherwise).
    "POST /v1/admin/sweep",
    "GET /v1/admin/calibrations",
    "POST /v1/admin/calibrations/rollback",
)
"""Operations with rules the stored data or several fields decide, which no schema of the
request can state: data the document allows may be refused with 409 or 422."""

CONFIG = "".join(
    f'[[operations]]\ninclude-name = "{name}"\n'
    "checks.positive_data_acceptance.expected-statuses = "
    '["2xx", "401", "403", "404", "409", "422"]\n\n'
    for name in DATA_RULES
)


def seed(server: Server, notes: Path, headers: dict[str, str]) -> None:
    """A collection of two notes and a few entries, so operations find something."""
    (notes / "adr").mkdir(parents=True)
    (notes / "deploys.md").write_text("# Deploys\n\nDeploys go out on Thursdays.\n")
    (notes / "adr" / "007.md").write_text("# ADR 7\n\nServices talk over gRPC.\n")
    added = httpx.post(
        f"{server.url}/v1/collections",
        json={"name": "notes", "path": str(notes)},
        headers=headers,
        timeout=60,
    )
    assert added.status_code == 201, added.text
    events = [
        {"id": "adr-7", "tier": "A", "text": "ADR 7: services talk over gRPC."},
        {"id": "standup-1", "tier": "C", "text": "Standup: the billing deploy slipped."},
        {"id": "run-1", "tier": "E", "text": "integration suite passed in 41s"},
    ]
    written = httpx.post(
        f"{server.url}/v1/events", json={"events": events}, headers=headers, timeout=60
    )
    assert written.status_code == 201, written.text


def schemathesis(server: Server, workdir: Path, *headers: str) -> subprocess.CompletedProcess[str]:
    config = workdir / "schemathesis.toml"
    config.write_text(CONFIG)
    options = [arg for header in headers for arg in ("--header", header)]
    return subprocess.run(
        [
            str(BIN / "schemathesis"),
            "--no-color",
            "--config-file",
            str(config),
            "run",
            f"{server.url}/schema/openapi.json",
            "--checks",
            "all",
            "--seed",
            str(SEED),
            "--max-examples",
            str(EXAMPLES),
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--request-timeout",
            "60",
            *options,
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=900,
    )


def summary(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout.rpartition("=== SUMMARY ===")[2] or done.stdout[-3000:] + done.stderr


@pytest.fixture
def open_server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "open", {"STRATA_COLLECTION_ROOTS": str(tmp_path / "notes")})
    yield running
    running.stop()


@pytest.fixture
def keyed_server(tmp_path: Path) -> Iterator[Server]:
    keys = f"{ADMIN}=admin;{AGENT}=agent:one"
    roots = str(tmp_path / "notes")
    # Schemathesis sends wrong keys on purpose (its authentication checks): past the
    # allowance of wrong keys from one address, every request from it would answer 429.
    running = Server(
        tmp_path / "keyed",
        {
            "STRATA_API_KEYS": keys,
            "STRATA_COLLECTION_ROOTS": roots,
            "STRATA_SIGN_IN_FAILURES_PER_MINUTE": "0",
        },
    )
    yield running
    running.stop()


def test_the_document_holds_in_open_mode(open_server: Server, tmp_path: Path) -> None:
    seed(open_server, tmp_path / "notes", {})
    done = schemathesis(open_server, tmp_path)
    print(summary(done))
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr


def test_the_document_holds_with_an_admin_key(keyed_server: Server, tmp_path: Path) -> None:
    seed(keyed_server, tmp_path / "notes", {"Authorization": f"Bearer {ADMIN}"})
    done = schemathesis(keyed_server, tmp_path, f"Authorization: Bearer {ADMIN}")
    print(summary(done))
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr
