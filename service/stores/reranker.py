"""Cross-encoder rerankers: ONNX Runtime over a graph exported once from the local weights,
or sentence-transformers on torch. Nothing is fetched from a model hub: the model is a
directory, or a name already in the local Hugging Face cache."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from service.stores.embedder import stay_offline
from service.stores.onnx_export import UnsupportedModel, export_onnx
from service.stores.onnx_runtime import Runner, load_tokenizer

log = logging.getLogger(__name__)

TOKEN_BUDGET = 512
"""Tokens (with padding) per ONNX call: about five question-passage pairs. Measured on two
cores, 30 pairs of ~100 tokens: 154 ms in fours against 296 ms in one batch of 32."""


def open_reranker(
    model: str, backend: str, cache_dir: Path, *, max_length: int, threads: int = 0
) -> OnnxCrossEncoder | CrossEncoderReranker:
    """The reranker for ``backend``; an ONNX backend falls back to torch (and logs why) for a
    model it cannot run. Raises ``FileNotFoundError`` when the model is not on this machine."""
    stay_offline()
    model_dir = local_model(model)
    if backend != "torch":
        try:
            return OnnxCrossEncoder(
                model_dir,
                cache_dir,
                quantized=backend == "onnx-int8",
                threads=threads,
                max_length=max_length,
                name=model,
            )
        except UnsupportedModel as exc:
            log.warning("reranker backend %s unavailable (%s); using torch", backend, exc)
    return CrossEncoderReranker(model_dir, max_length=max_length, threads=threads, name=model)


def local_model(model: str) -> Path:
    """The directory holding ``model``: itself, or its snapshot in the local hub cache."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if path.is_absolute() or model.startswith("."):
        raise FileNotFoundError(f"no model directory at {model}")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model, local_files_only=True))
    except Exception as exc:
        raise FileNotFoundError(
            f"{model} is not in the local model cache (nothing is downloaded at run time)"
        ) from exc


class OnnxCrossEncoder:
    """A one-logit sequence-classification model scored as sigmoid(logit), on ONNX Runtime:
    the scores sentence-transformers' ``CrossEncoder`` gives for the same weights
    (``quantized``: int8 weights, faster and slightly different)."""

    def __init__(
        self,
        model_dir: Path,
        cache_dir: Path,
        *,
        max_length: int,
        quantized: bool = False,
        threads: int = 0,
        batch_size: int = 64,
        name: str = "",
    ) -> None:
        graph = export_onnx(model_dir, cache_dir, head="logits", quantized=quantized)
        # int8 activations are scaled per call: each pair runs alone, so that a passage's
        # score does not depend on the candidates scored beside it.
        self._runner = Runner(graph, threads, alone=quantized)
        self._tokenizer = load_tokenizer(model_dir, max_length)
        self.name = name or model_dir.name
        self.backend = "onnx-int8" if quantized else "onnx"
        self.batch_size = batch_size
        if len(self._logits("probe", ["probe"])[0]) != 1:
            raise UnsupportedModel("the model has more than one output label")

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        logits = self._logits(query, passages)[:, 0]
        return [float(s) for s in 1.0 / (1.0 + np.exp(-logits))]

    def _logits(self, query: str, passages: Sequence[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch([(query, p) for p in passages])
        out: np.ndarray | None = None
        ran = self._runner.run(
            encoded, token_budget=TOKEN_BUDGET, most=self.batch_size, every_core=True
        )
        for batch, logits in ran:
            if out is None:
                out = np.zeros((len(encoded), logits.shape[1]), dtype=np.float32)
            out[batch.rows] = logits
        assert out is not None
        return out


class CrossEncoderReranker:
    """sentence-transformers' ``CrossEncoder`` on torch, scores squashed to [0, 1]."""

    def __init__(
        self, model_dir: Path, *, max_length: int, threads: int = 0, name: str = ""
    ) -> None:
        import torch
        from sentence_transformers import CrossEncoder

        if threads > 0:
            torch.set_num_threads(threads)
        self.name = name or model_dir.name
        self.backend = "torch"
        self._model = CrossEncoder(str(model_dir), device="cpu", max_length=max_length)

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        import torch

        scores = self._model.predict(
            [(query, p) for p in passages],
            batch_size=32,
            show_progress_bar=False,
            activation_fn=torch.nn.Sigmoid(),
            convert_to_numpy=True,
        )
        return [float(s) for s in scores]
