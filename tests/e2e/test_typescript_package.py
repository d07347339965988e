"""The TypeScript client installed from a clone as its README says, without a registry: the
tarball `npm pack` builds, installed `--offline` into a new project, and a `file:` dependency
on the folder; in each, the README's example compiled against the installed package and run
against the real server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_server import Server
from tests.readme import ROOT, fenced_blocks

CLIENT = Path(__file__).parents[2] / "clients" / "typescript"
README = CLIENT / "README.md"
NO_REGISTRY = "http://127.0.0.1:9/"
"""Where the offline installs are told the registry is: nothing listens there."""


def run(folder: Path, *command: str, offline: bool = False) -> str:
    environ = {**os.environ, "npm_config_audit": "false", "npm_config_fund": "false"}
    environ.pop("STRATA_API_KEY", None)
    if offline:
        environ["npm_config_registry"] = NO_REGISTRY
    done = subprocess.run(
        command, cwd=folder, env=environ, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-5000:]}{done.stderr[-5000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client's folder as a clone holds it, built: `npm ci`, then `npm pack`."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"install {' and '.join(missing)} (scripts/system-packages does)"
    folder = tmp_path_factory.mktemp("strata") / "typescript"
    ignore = shutil.ignore_patterns("node_modules", "build", "dist", "*.tgz")
    shutil.copytree(CLIENT, folder, ignore=ignore)
    run(folder, "npm", "ci", "--prefer-offline")
    return folder


@pytest.fixture(scope="module")
def tarball(clone: Path) -> Path:
    packed = json.loads(run(clone, "npm", "pack", "--json"))[0]
    shipped = {file["path"].split("/")[0] for file in packed["files"]}
    assert shipped == {"README.md", "package.json", "dist", "src"}, shipped
    assert packed["filename"] in README.read_text(), "the README names the tarball npm pack writes"
    return clone / str(packed["filename"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("server") / "data")
    yield running
    running.stop()


def project(folder: Path, dependency: Path) -> Path:
    """A new project that installs ``dependency`` with no registry to reach."""
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "app", "private": true, "type": "module"}\n')
    run(folder, "npm", "install", "--offline", str(dependency), offline=True)
    return folder


def run_the_example(app: Path, clone: Path, server: Server) -> str:
    """The README's first example, compiled against the package ``app`` installed and run."""
    example = next(block for block in fenced_blocks(README.read_text()) if block.language == "ts")
    return run_code(app, clone, server, example.text)


def run_code(app: Path, clone: Path, server: Server, code: str) -> str:
    """``code``, its service pointed at ``server``, compiled against the package ``app``
    installed and run."""
    (app / "example.ts").write_text(code.replace("http://127.0.0.1:8080", server.url))
    compiler = clone / "node_modules" / "typescript" / "bin" / "tsc"
    types = clone / "node_modules" / "@types"
    # The package's own declarations were checked when it was built.
    options = "--strict --skipLibCheck --module nodenext --target es2022 --types node --outDir out"
    run(app, "node", str(compiler), *options.split(), "--typeRoots", str(types), "example.ts")
    return run(app, "node", "out/example.js")


def test_the_tarball_installs_offline_and_runs_the_readme_example(
    tarball: Path, clone: Path, server: Server, tmp_path: Path
) -> None:
    app = project(tmp_path / "app", tarball)
    dependency = json.loads((app / "package.json").read_text())["dependencies"]
    assert dependency["@strata-memory/client"].endswith(tarball.name)

    printed = run_the_example(app, clone, server)
    # It searches where it wrote: the hit is printed as score, tier, snippet.
    assert " A I am allergic to peanuts, so never suggest satay." in printed, printed
    report = httpx.get(f"{server.url}/v1/reports/daily", params={"namespace": "alice"}).json()
    assert report["questions"] >= 1, "the example asks in the namespace it wrote"


def test_a_file_dependency_on_the_folder_runs_the_readme_example(
    clone: Path, server: Server, tmp_path: Path
) -> None:
    run(clone, "npm", "run", "build")
    app = project(tmp_path / "app", clone)
    dependency = json.loads((app / "package.json").read_text())["dependencies"]
    assert dependency["@strata-memory/client"].startswith("file:")
    assert (app / "node_modules" / "@strata-memory" / "client").resolve() == clone.resolve()

    printed = run_the_example(app, clone, server)
    assert " A I am allergic to peanuts, so never suggest satay." in printed, printed


DOC_PAGES = ("README.md", "docs/guide/clients.md")
"""The pages besides the client's README whose TypeScript examples run here."""


def doc_examples() -> list[tuple[str, int, str]]:
    return [
        (page, block.line, block.text)
        for page in DOC_PAGES
        for block in fenced_blocks((ROOT / page).read_text())
        if block.language == "ts"
    ]


@pytest.mark.parametrize(("page", "line", "code"), doc_examples())
def test_every_typescript_example_of_the_docs_compiles_and_runs(
    clone: Path, server: Server, tmp_path: Path, page: str, line: int, code: str
) -> None:
    run(clone, "npm", "run", "build")
    app = project(tmp_path / "app", clone)
    run_code(app, clone, server, code)  # fails on a compile error, an error thrown or a rejection
