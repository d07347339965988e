"""The service process a benchmark drives: start a throw-away one, find it, measure it."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

from bench.common import REPO_ROOT, admin_key_env

HEALTH_TIMEOUT_S = 180.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve(api_key: str | None, environ: Mapping[str, str] | None = None) -> Iterator[str]:
    """Run ``python -m service serve`` on a free port; yields its base URL.

    The service gets this process's environment (and ``environ`` over it) and a throw-away
    data directory, and is stopped on exit.
    """
    port = _free_port()
    env = {**os.environ, **(environ or {})}
    if api_key:
        env.update(admin_key_env(api_key))
    with tempfile.TemporaryDirectory(prefix="strata-bench-") as tmp:
        log_path = Path(tmp) / "server.log"
        cmd = [sys.executable, "-m", "service", "serve", "--port", str(port)]
        cmd += ["--data-dir", str(Path(tmp) / "data")]
        with log_path.open("wb") as log:
            proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
            try:
                url = f"http://127.0.0.1:{port}"
                _wait_healthy(url, proc, log_path)
                yield url
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _fail_serve(f"service exited with code {proc.returncode}", log_path)
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                print(f"service up at {url}", file=sys.stderr)
                return
        time.sleep(0.5)
    _fail_serve(f"service not healthy after {HEALTH_TIMEOUT_S:.0f} s", log_path)


def _fail_serve(message: str, log_path: Path) -> None:
    tail = log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
    print(f"{message}\n--- server log (tail) ---\n{tail}", file=sys.stderr)
    raise SystemExit(1)


def served_child() -> tuple[int | None, Path | None]:
    """PID and data directory of the ``service serve`` process that ``serve`` started."""
    me = os.getpid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and b"service" in cmd and b"serve" in cmd:
            data = None
            if b"--data-dir" in cmd:
                data = Path(cmd[cmd.index(b"--data-dir") + 1].decode())
            return int(proc.name), data
    return None, None


def listener_pid(url: str) -> int | None:
    """PID of the local process listening on ``url``'s port, if it is on this machine."""
    parsed = urlparse(url)
    if parsed.hostname not in ("127.0.0.1", "localhost", "::1") or parsed.port is None:
        return None
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == parsed.port:
                    inodes.add(f"socket:[{cols[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        return int(proc.name)
    return None


def proc_memory(pid: int | None) -> dict[str, int] | None:
    """VmRSS and VmHWM (peak) of a process, in bytes."""
    if pid is None:
        return None
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        try:
            import psutil  # type: ignore[import-untyped, unused-ignore]

            return {"rss": int(psutil.Process(pid).memory_info().rss)}
        except Exception:
            return None
    found = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found["rss" if key == "VmRSS" else "peak_rss"] = int(value.split()[0]) * 1024
    return found


def service_commit() -> str | None:
    """The checked-out commit of the service code ``serve`` runs, marked when modified."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--", "service", "schemas")
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{head}+modified" if dirty else head


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def service_settings() -> Any:
    """The service's settings as this environment gives them (defaults when unreadable)."""
    from service.settings import Settings

    try:
        return Settings.from_env(os.environ)
    except Exception:
        return Settings()
