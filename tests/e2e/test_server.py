"""The real server process, driven over HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sized
from pathlib import Path
from typing import Protocol

import httpx
import pytest

from service.testing.engines import free_port, wait_until_up
from service.testing.engines import stop_process as stop


class Server:
    def __init__(self, data_dir: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir.parent / f"server-{self.port}.log"
        self._log = self.log.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "service",
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(data_dir),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        try:
            wait_until_up(f"{self.url}/health", self.process)
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        stop(self.process)
        self._log.close()


class Killable(Protocol):
    process: subprocess.Popen[bytes]

    def stop(self) -> None: ...


def killed_while_writing(
    server: Killable, write: Callable[[threading.Event], None], acked: Sized, at_least: int
) -> None:
    """``write`` runs on a thread of its own (until its event is set, or the server stops
    answering); once ``acked`` holds ``at_least`` acknowledged writes the server is killed
    with SIGKILL, then stopped."""
    done = threading.Event()
    writer = threading.Thread(target=write, args=(done,))
    writer.start()
    try:
        while len(acked) < at_least and writer.is_alive():
            writer.join(0.02)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(30)
    finally:
        done.set()
        writer.join(60)
        server.stop()
    assert len(acked) >= at_least


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def server(data_dir: Path) -> Iterator[Server]:
    running = Server(data_dir)
    yield running
    running.stop()


def test_write_search_restart_and_find_again(server: Server, data_dir: Path) -> None:
    events = [
        {"id": "adr-7", "tier": "A", "text": "ADR 7: services talk over gRPC, not REST."},
        {"id": "run-1", "tier": "E", "text": "integration suite passed in 41s", "speaker": "ci"},
    ]
    response = httpx.post(f"{server.url}/v1/events", json={"events": events})
    assert response.status_code == 201
    assert response.json()["embedded"] == 1
    found = httpx.post(f"{server.url}/v1/search", json={"query": "what protocol between services?"})
    assert found.json()["results"][0]["id"] == "adr-7"

    server.stop()
    restarted = Server(data_dir)
    try:
        found = httpx.post(
            f"{restarted.url}/v1/search", json={"query": "integration suite", "tiers": ["E"]}
        )
        assert found.json()["results"][0]["id"] == "run-1"
        jobs = httpx.get(f"{restarted.url}/v1/admin/jobs").json()["jobs"]
        assert all(job["next_run"] for job in jobs), "the scheduler runs with the service"
        health = httpx.get(f"{restarted.url}/health").json()
        assert health["stores"]["ledger"] == {"A": 1, "E": 1}
        assert health["stores"]["chroma"]["A"] == 1
    finally:
        restarted.stop()


def test_non_loopback_host_without_keys_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service",
            "serve",
            "--host",
            "0.0.0.0",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "STRATA_API_KEYS" in done.stderr
