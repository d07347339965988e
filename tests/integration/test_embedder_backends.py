"""The ONNX Runtime backends against sentence-transformers on torch, same weights."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from service.lib.fair import FairExecutor, asking, shared
from service.stores.embedder import (
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    default_model_path,
    open_embedder,
)
from service.stores.onnx_export import UnsupportedModel, export_onnx

TEXTS = [
    "We decided to keep PostgreSQL as the primary store for billing.",
    "deploy failed: exit code 137 on worker-3",
    "Should the retry policy back off exponentially?",
    "short",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


def cosines(a: list[tuple[float, ...]], b: list[tuple[float, ...]]) -> npt.NDArray[np.float64]:
    sums: npt.NDArray[np.float64] = np.sum(np.asarray(a) * np.asarray(b), axis=1)
    return sums


def test_onnx_gives_the_vectors_torch_gives(
    embedder: SentenceTransformerEmbedder, cache: Path
) -> None:
    onnx = OnnxEmbedder(Path(default_model_path()), cache)
    vectors = onnx.embed(TEXTS)
    assert onnx.dimension == embedder.dimension == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert cosines(vectors, embedder.embed(TEXTS)).min() > 0.9999
    assert onnx.count_tokens(TEXTS) == embedder.count_tokens(TEXTS)
    # Order and batching do not change a text's vector.
    again = onnx.embed(list(reversed(TEXTS)))[::-1]
    assert cosines(vectors, again).min() > 0.9999
    # One text alone (a query) runs on its own session and gets the same vector.
    alone = [onnx.embed([text])[0] for text in TEXTS]
    assert cosines(vectors, alone).min() > 0.9999


def test_tokens_counted_word_by_word_are_the_tokenizer_s_count_of_the_whole_text(
    embedder: SentenceTransformerEmbedder, cache: Path
) -> None:
    onnx = OnnxEmbedder(Path(default_model_path()), cache)
    texts = [
        *TEXTS,
        "Ünïcode, punctuation—and   spaces:\tthe ledger's 2nd try (v1.2.3)!\nDone.",
        "数据库 迁移 完成 on 2024-05-01; see https://example.org/a/b?c=d&e=f#g",
        "x" * 90 + " " + "deploy " * 400,
        "",
    ]
    tokenizer = embedder._model.tokenizer
    whole = [len(ids) for ids in tokenizer(texts, add_special_tokens=True)["input_ids"]]
    read = [min(n, 256) for n in whole]
    assert embedder.count_tokens(texts) == read
    assert onnx.count_tokens(texts) == read
    assert [n + 2 for n in onnx.tokens.count(texts)] == whole
    # A word of more than 100 characters is one unknown token to the tokenizer; counted in
    # parts, it is never fewer.
    long_word = "x" * 400
    assert onnx.count_tokens([long_word]) >= embedder.count_tokens([long_word])


def test_int8_is_close_to_torch(embedder: SentenceTransformerEmbedder, cache: Path) -> None:
    int8 = OnnxEmbedder(Path(default_model_path()), cache, quantized=True)
    assert int8.backend == "onnx-int8"
    exact = embedder.embed(TEXTS)
    vectors = int8.embed(TEXTS)
    assert cosines(vectors, exact).min() > 0.85
    # Activations are scaled per call, so each text is embedded on its own: its vector is
    # the same alone (a query), among others in any order, and while other callers ask.
    assert [int8.embed([text])[0] for text in TEXTS] == vectors
    assert int8.embed([*reversed(TEXTS), "a much longer companion text " * 20])[-2::-1] == vectors


def test_a_write_embedded_while_others_ask_gets_the_vectors_it_gets_alone(cache: Path) -> None:
    """While other callers ask, a write's texts run one after the other on one thread;
    alone, side by side on every core: the same vectors either way."""
    int8 = OnnxEmbedder(Path(default_model_path()), cache, quantized=True)
    pool, gate = FairExecutor(2), threading.Event()
    try:
        with asking("writer"):
            assert pool.submit(shared).result(5) is False
            quiet = pool.submit(int8.embed, TEXTS).result(30)
        with asking("reader"):
            held = pool.submit(gate.wait, 10)
        with asking("writer"):
            assert pool.submit(shared).result(5) is True
            busy = pool.submit(int8.embed, TEXTS).result(30)
        gate.set()
        held.result(5)
        assert busy == quiet == int8.embed(TEXTS)
    finally:
        gate.set()
        pool.shutdown()


def test_the_export_is_made_once_and_reused(cache: Path) -> None:
    model = Path(default_model_path())
    first = export_onnx(model, cache)
    made = first.stat().st_mtime_ns
    assert export_onnx(model, cache) == first and first.stat().st_mtime_ns == made


def test_a_model_with_more_than_mean_pooling_runs_on_torch(tmp_path: Path, cache: Path) -> None:
    model = tmp_path / "model"
    shutil.copytree(default_model_path(), model)
    pooling = model / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**config, "pooling_mode_cls_token": True}))
    with pytest.raises(UnsupportedModel, match="pooling"):
        OnnxEmbedder(model, cache)
    assert isinstance(open_embedder(str(model), "onnx", cache), SentenceTransformerEmbedder)
