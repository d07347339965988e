"""The web app on fakes loads no model runtime: API tests stay fast."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from litestar.testing import TestClient
from service.app import create_app
from service.application import Stores
from service.bootstrap import build_runtime
from service.settings import Settings
from tests.fakes import (FakeCatalog, FakeCoordination, FakeEmbedder, FakeFiles,
    FakeInteractionLog, FakeRunLog, FakeKeywordStore, FakeLedger, FakeVectorStore)
from tests.http import LOCAL

stores = Stores(FakeLedger(), FakeVectorStore(), FakeKeywordStore(), FakeCatalog(),
    FakeInteractionLog(), FakeFiles(), FakeEmbedder(), FakeRunLog(), FakeCoordination())
runtime = build_runtime(Settings.from_env({}), stores)
with TestClient(create_app(services=runtime.services), base_url=LOCAL) as client:
    written = client.post("/v1/events", json={"events": [{"tier": "A", "text": "hello"}]})
    assert written.status_code == 201, written.text
    assert client.post("/v1/search", json={"query": "hello"}).json()["results"]
runtimes = {"torch", "onnxruntime", "sentence_transformers", "transformers"}
loaded = sorted(runtimes & set(sys.modules))
print(",".join(loaded))
"""


def test_the_app_on_fakes_imports_no_model_runtime() -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
