"""Shared fixtures: the real model once per session, real stores per test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Servers the tests start export the ONNX model once for the whole run, not once each.
os.environ.setdefault(
    "STRATA_MODEL_CACHE", str(Path(__file__).resolve().parent.parent / ".pytest_cache" / "models")
)

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2, loaded once."""
    from service.stores.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` server on loopback; yields its URL."""
    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    log = (path / "server.log").open("wb")
    process = subprocess.Popen(
        [
            str(BIN / "chroma"),
            "run",
            "--path",
            str(path / "data"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{url}/api/v2/heartbeat", process)
        yield url
    finally:
        stop(process)
        log.close()


@pytest.fixture(params=["embedded", "server"])
def chroma_url(request: pytest.FixtureRequest) -> str:
    """Empty for the embedded PersistentClient, else the URL of the test Chroma server."""
    if request.param == "embedded":
        return ""
    return str(request.getfixturevalue("chroma_server"))


@pytest.fixture
def vector_store(chroma_url: str, tmp_path: Path):
    from service.stores.chroma import ChromaVectorStore, connect

    # A fresh collection prefix keeps tests apart on the shared server.
    return ChromaVectorStore(connect(tmp_path, chroma_url), prefix=f"t{uuid.uuid4().hex[:12]}")
