"""The services a quality run searches: ones started here, one per variant of the settings,
each on a data directory of its own and started afresh before every pass; or one already
running at ``--url``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import admin_key_env
from bench.load.processes import ReplicaProcess
from bench.server import listener_pid

SERVED = {"STRATA_QUERY_CACHE_SIZE": "0", "STRATA_JOBS": "off"}
"""Settings of every service started here: no search answered from the outcome cache, no
scheduled job firing during a pass."""
NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")
SETTING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Settings are split at commas followed by a name and '=': a JSON value keeps its commas.
NEXT_SETTING = re.compile(r",(?=\s*[A-Za-z_][A-Za-z0-9_]*=)")


@dataclass(frozen=True)
class Variant:
    """Settings a service is started with on top of this process's environment."""

    name: str
    env: dict[str, str] = field(default_factory=dict)


BASE = Variant("base")


def parse_variant(text: str) -> Variant:
    """``NAME:ENV=VALUE[,ENV=VALUE]`` as a variant; ``STRATA_`` is added to a setting that
    lacks it. ``NAME:`` alone is the base settings again (a second measure of them)."""
    name, colon, rest = text.partition(":")
    if not colon or not NAME.fullmatch(name):
        raise ValueError(f"{text!r}: expected NAME:ENV=VALUE[,ENV=VALUE]")
    env: dict[str, str] = {}
    for part in NEXT_SETTING.split(rest) if rest.strip() else []:
        key, equals, value = part.partition("=")
        key = key.strip()
        if not equals or not SETTING.fullmatch(key):
            raise ValueError(f"{text!r}: {part!r} is not ENV=VALUE")
        env[key if key.startswith("STRATA_") else f"STRATA_{key}"] = value
    return Variant(name, env)


class Served:
    """``python -m service serve`` with a variant's settings on its own data directory
    under ``root``. ``fresh`` starts it again on the same data: caches and read-time
    counters start empty, nothing is ingested again."""

    restarts = True

    def __init__(self, variant: Variant, api_key: str | None, root: Path) -> None:
        self.variant = variant
        keyed = admin_key_env(api_key) if api_key else {}
        self.env = {**SERVED, **keyed, **variant.env}
        self.data_dir = root / variant.name
        self.log = root / f"{variant.name}.log"
        self.process: ReplicaProcess | None = None

    @property
    def url(self) -> str:
        assert self.process is not None
        return self.process.url

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def fresh(self) -> None:
        """Stop the service if it runs, and start it (again) on its data."""
        self.stop()
        self.process = ReplicaProcess(self.variant.name, self.data_dir, self.log, self.env)
        self.process.wait_up()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None


class Running:
    """A service already running at ``url``: never restarted; its CPU time is read when it
    listens on this machine (or ``pid`` is given)."""

    restarts = False

    def __init__(self, url: str, pid: int | None = None) -> None:
        self.url = url
        self.pid = pid or listener_pid(url)
        self.variant = BASE

    def fresh(self) -> None:
        """Nothing to do: a running service's caches stay as earlier passes left them."""

    def stop(self) -> None:
        """Not ours to stop."""
