"""The shell examples of the README and the docs, run in order, as written, against the real
server process.

Each chain of pages (``tests.readme.CHAINS``: the README; the docs' pages from the quick start
on) runs against a server of its own. Every block of its pages tagged ``sh`` (``bash``,
``shell``, ``console``) runs in one shell, page after page, so what one example writes or sets
(``ADMIN=...``) the next one finds, with the pages' ``127.0.0.1:8080`` and ``localhost:8080``
pointed at the test's server and ``strata`` on the ``PATH``; a block a page marks
``<!-- not run: reason -->`` is left out (tests/readme.py says how blocks and shown outputs
are read). Each curl must answer the status shown, else a success; each other command must
exit 0; an output shown as JSON must have every field shown, with the same values where they
are stable.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.test_server import Server
from tests.readme import CHAINS, ROOT, Example, examples, mismatches, pattern, runnable

HOST = re.compile(r"\b(?:127\.0\.0\.1|localhost):8080\b")
STATUS = re.compile(r"^HTTP (\d{3})\n?\Z", re.MULTILINE)
CURL = "curl() { command curl --write-out '%{stderr}HTTP %{http_code}\\n' \"$@\"; }"
"""curl as the examples call it, saying the HTTP status of each answer last on stderr."""
HOME = "/home/me"
"""The home the examples show: collections may read only there (unset, the roots
are the home of whoever runs the service), so a refusal names it as the docs do."""


@dataclass(frozen=True)
class Step:
    page: str
    example: Example


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    status: int | None
    """The HTTP status, for a curl."""


@pytest.mark.parametrize("chain", list(CHAINS))
def test_the_examples_run_in_order(chain: str, tmp_path: Path) -> None:
    steps = [
        Step(page, example)
        for page in CHAINS[chain]
        for block in runnable((ROOT / page).read_text())
        for example in examples(block)
    ]
    for page in CHAINS[chain]:
        assert any(step.page == page for step in steps), f"{page}: no example to run"
    assert shutil.which("curl"), "install curl (scripts/system-packages does)"

    # An empty model cache, as on a new machine: no reranker is loaded.
    environ = {"STRATA_COLLECTION_ROOTS": HOME, "HF_HOME": str(tmp_path / "hub")}
    server = Server(tmp_path / "data", environ)
    try:
        outcomes = run_in_one_shell(steps, server.url, tmp_path)
    finally:
        server.stop()
    failures = [
        failure for step, got in zip(steps, outcomes, strict=True) for failure in check(step, got)
    ]
    assert not failures, "\n\n".join(failures) + f"\n\nserver log: {server.log}"


def run_in_one_shell(steps: list[Step], url: str, folder: Path) -> list[Outcome]:
    """Run ``steps`` in order in one bash, each step's output, status and exit code kept."""
    work, kept = folder / "work", folder / "outcomes"
    work.mkdir()
    kept.mkdir()
    address = url.removeprefix("http://")
    script = [CURL]
    for number, step in enumerate(steps):
        out = shlex.quote(str(kept / str(number)))
        script += [
            "{",
            HOST.sub(address, step.example.command),
            f"}} >{out}.out 2>{out}.err",
            f"echo $? >{out}.code",
        ]
    environ = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "STRATA_URL": url,
        "STRATA_CONFIG": str(folder / "no-config.toml"),
    }
    environ.pop("STRATA_API_KEY", None)
    subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
        cwd=work,
        env=environ,
        timeout=600,
        check=False,
    )
    outcomes = []
    for number in range(len(steps)):
        code = kept / f"{number}.code"
        stderr = (kept / f"{number}.err").read_text() if code.exists() else "never ran"
        status = STATUS.search(stderr)
        outcomes.append(
            Outcome(
                int(code.read_text()) if code.exists() else -1,
                (kept / f"{number}.out").read_text() if code.exists() else "",
                stderr[: status.start()] if status else stderr,
                int(status.group(1)) if status else None,
            )
        )
    return outcomes


def check(step: Step, got: Outcome) -> list[str]:
    """What is wrong with ``got`` as the outcome of ``step``, as its page shows it."""
    example = step.example
    where = f"{step.page} line {example.line}: {example.command.splitlines()[0]}"
    told = f"\n  stdout: {got.stdout[:2000]}\n  stderr: {got.stderr[:2000]}"
    shown = example.shown
    expected = shown[0] if shown else None
    if got.code != 0:
        return [f"{where}\n  exited {got.code}{told}"]
    if got.status is not None:
        as_shown = got.status == expected if expected else 200 <= got.status < 300
        if not as_shown:
            return [f"{where}\n  answered {got.status}, shown {expected or 'a success'}{told}"]
    if shown is None:
        return []
    try:
        actual = json.loads(got.stdout)
    except ValueError:
        return [f"{where}\n  printed no JSON, shown {shown[1]}{told}"]
    problems = mismatches(pattern(shown[1]), actual)
    return [f"{where}\n  " + "\n  ".join(problems) + told] if problems else []
