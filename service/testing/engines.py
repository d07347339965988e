"""Throw-away servers a benchmark or a test starts on loopback: a PostgreSQL cluster and a
Chroma server (``chroma run``). Nothing here imports the service.

The PostgreSQL cluster is made in a temporary folder (``initdb``, with fsync off and trust
authentication), listens on a free loopback port, and is stopped and deleted with ``stop``.
Run as root, its files belong to the ``postgres`` user and its programs run as that user
(``initdb`` refuses root)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

START_TIMEOUT_S = 120.0


def free_port() -> int:
    """A TCP port free on loopback now (another process may take it before it is used)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: Debian's newest, else the PATH's."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).resolve().parent))
    for folder in map(Path, candidates):
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _version(folder: str) -> int:
    name = Path(folder).parent.name
    return int(name) if name.isdigit() else 0


class TemporaryPostgres:
    """A PostgreSQL cluster of its own, in a temporary folder, on a loopback port."""

    def __init__(self, binaries: Path, *, durable: bool = False) -> None:
        """``durable`` keeps fsync and synchronous commits on (the server's defaults), as a
        benchmark of write rates needs; tests turn them off."""
        self.binaries = binaries
        self.durable = durable
        self.root = Path(tempfile.mkdtemp(prefix="strata-postgres-"))
        self.data = self.root / "data"
        self.as_root = os.geteuid() == 0
        if self.as_root:  # initdb refuses to run as root
            shutil.chown(self.root, "postgres", "postgres")
        self.root.chmod(0o700)
        self.port = 0
        self._options = ""

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.binaries / program), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} failed: {done.stdout}{done.stderr}{tail}")

    def start(self) -> str:
        """Create and start the cluster; returns the URL of its ``postgres`` database."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "-E", "UTF8", "--no-locale", "--no-sync")  # fmt: skip
        options = f"-k {self.root} -c listen_addresses=127.0.0.1"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        for attempt in range(3):
            self.port = free_port()
            self._options = f"{options} -p {self.port}"
            try:
                self.resume()
                break
            except RuntimeError:
                if attempt == 2:  # else the port was taken meanwhile: another one
                    raise
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def pause(self) -> None:
        """Stop the server (``fast``: its sessions are ended), keeping its data."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start the server again, on its port."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-w", "-t", "60", "-o", self._options, "start")  # fmt: skip

    def stop(self) -> None:
        try:
            if self.port:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def create_database(admin_url: str, name: str) -> str:
    """A new database beside ``admin_url``'s; returns its URL."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"'.encode())
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


class ChromaServer:
    """``chroma run`` on a free loopback port, its data in ``path``; its output in
    ``path/server.log``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.url = ""
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the server and wait for its heartbeat; returns its URL."""
        self.path.mkdir(parents=True, exist_ok=True)
        port = self.port = self.port or free_port()  # the same port when started again
        chroma = Path(sys.executable).parent / "chroma"
        command = [str(chroma), "run", "--path", str(self.path / "data"),
                   "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
        with (self.path / "server.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(f"{self.url}/api/v2/heartbeat", self.process)
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None


def wait_until_up(
    url: str, process: subprocess.Popen[bytes], timeout: float = START_TIMEOUT_S
) -> None:
    """Wait until ``url`` answers 200; fails when ``process`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def stop_process(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
