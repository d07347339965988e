"""Server processes of a cluster run: strata replicas started here, and the CPU time of any
process tree read from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from bench.common import REPO_ROOT
from service.testing.engines import free_port, stop_process, wait_until_up

TICKS = os.sysconf("SC_CLK_TCK")


class ReplicaProcess:
    """``python -m service serve`` with ``env`` on a free loopback port, its data in
    ``data_dir`` and its output in ``log``."""

    def __init__(self, name: str, data_dir: Path, log: Path, env: Mapping[str, str]) -> None:
        self.name = name
        self.data_dir = data_dir
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "service", "serve", "--port", str(self.port)]
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [*command, "--data-dir", str(data_dir)],
                cwd=REPO_ROOT,
                env={**os.environ, **env, "STRATA_REPLICA_NAME": name},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.started = time.perf_counter()
        self.up_seconds = float("nan")
        """From the process's start to its first healthy answer."""

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_up(self) -> ReplicaProcess:
        try:
            wait_until_up(f"{self.url}/health", self.process, timeout=1800)
        except RuntimeError:
            tail = self.log.read_text(errors="replace")[-4000:]
            print(f"--- {self.name} log (tail) ---\n{tail}", file=sys.stderr)
            self.stop()
            raise
        self.up_seconds = time.perf_counter() - self.started
        print(f"replica {self.name} up at {self.url} in {self.up_seconds:.1f} s", file=sys.stderr)
        return self

    def stop(self) -> None:
        stop_process(self.process, timeout=60)


def _children() -> dict[int, list[int]]:
    """Every process's children, by parent PID."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(proc.name))
    return children


def _own_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def tree_cpu(roots: Iterable[int]) -> float:
    """CPU seconds (user + system) the processes ``roots`` and their descendants alive now
    have used so far."""
    children = _children()
    total, stack, seen = 0.0, list(roots), set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _own_cpu(pid)
        stack.extend(children.get(pid, ()))
    return total


def postmaster_pid(data: Path) -> int | None:
    """The PID of the PostgreSQL server running on ``data`` (its ``postmaster.pid``)."""
    try:
        return int((data / "postmaster.pid").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None
