"""ONNX graphs exported once from a local model's weights, for ONNX Runtime to run.

The export needs torch; it runs in a child process so the service itself never loads
torch for an ONNX backend (several hundred MB of memory it would keep for nothing).
Graphs are cached under a folder named by the weights' path, size and time, so changed
weights are exported again. ``python -m service.stores.onnx_export MODEL_DIR OUT HEAD``
is the child's entry point.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

HEADS = ("hidden", "logits")
"""``hidden``: a sentence model's token states (pooled by the caller); ``logits``: a
sequence-classification head, as in a cross-encoder."""

_LOCK = threading.Lock()


class UnsupportedModel(Exception):
    """The model cannot be run by an ONNX backend."""


def export_onnx(
    model_dir: Path, cache_dir: Path, *, head: str = "hidden", quantized: bool = False
) -> Path:
    """The model's ONNX graph (int8 weights when ``quantized``) under ``cache_dir``, made from
    its weights the first time and reused afterwards."""
    weights = [*model_dir.glob("*.safetensors"), *model_dir.glob("*.bin")]
    if not weights or not (model_dir / "tokenizer.json").is_file():
        raise UnsupportedModel(f"{model_dir} has no local weights and tokenizer.json")
    stamp = "|".join(f"{p.resolve()}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in weights)
    digest = hashlib.sha256(f"{head}|{stamp}".encode()).hexdigest()[:12]
    folder = cache_dir / f"{model_dir.name}-{digest}"
    plain, small = folder / "model.onnx", folder / "model-int8.onnx"
    with _LOCK:
        if not plain.exists() or (quantized and not small.exists()):
            folder.mkdir(parents=True, exist_ok=True)
            _run_child(model_dir, folder, head)
    return small if quantized else plain


def _run_child(model_dir: Path, folder: Path, head: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", __name__, str(model_dir), str(folder), head],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise UnsupportedModel(f"export failed: {lines[-1] if lines else done.returncode}")


def export_folder(model_dir: Path, folder: Path, head: str) -> None:
    """Write ``model.onnx`` and ``model-int8.onnx`` into ``folder`` (what the child does)."""
    plain, small = folder / "model.onnx", folder / "model-int8.onnx"
    if not plain.exists():
        _export(model_dir, plain, head)
    if not small.exists():
        from onnxruntime.quantization import QuantType, quantize_dynamic

        partial = small.with_suffix(".partial")
        quantize_dynamic(str(plain), str(partial), weight_type=QuantType.QInt8)
        partial.replace(small)


def _export(model_dir: Path, out: Path, head: str) -> None:
    import torch
    from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    loader = AutoModel if head == "hidden" else AutoModelForSequenceClassification
    model = loader.from_pretrained(str(model_dir)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    sample = tokenizer(["an example", "a longer example"], padding=True, return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    output = "last_hidden_state" if head == "hidden" else "logits"

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return getattr(self.model(**dict(zip(names, inputs, strict=True))), output)

    partial = out.with_suffix(".partial")
    # The TorchScript exporter (deprecated, still in the pinned torch) needs no extra
    # package and exports this static graph exactly; its tracer warnings do not apply.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Graph(),
            tuple(sample[n] for n in names),
            str(partial),
            input_names=names,
            output_names=[output],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in names}
            | {output: {0: "batch", 1: "tokens"} if head == "hidden" else {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
    partial.replace(out)


if __name__ == "__main__":
    model_arg, folder_arg, head_arg = sys.argv[1:4]
    if head_arg not in HEADS:
        sys.exit(f"head must be one of {', '.join(HEADS)}")
    export_folder(Path(model_arg), Path(folder_arg), head_arg)
