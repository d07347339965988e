"""Cross-encoder reranking with sentence-transformers."""

from __future__ import annotations

import os
from collections.abc import Sequence

DEFAULT_RERANKER = "cross-encoder/ms-marco-MiniLM-L-6-v2"


class CrossEncoderReranker:
    """Scores (query, passage) pairs; higher is more relevant, squashed to [0, 1]."""

    def __init__(self, model: str = DEFAULT_RERANKER, *, max_length: int = 256) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        self.name = model
        self._model = CrossEncoder(model, device="cpu", max_length=max_length)

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
