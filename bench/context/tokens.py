"""The service's token counter over the embedding model's own tokenizer, loaded from disk as
the service loads it: what the naive block is measured with, so both blocks are counted
alike."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from service.domain.tokens import ModelTokens
from service.stores.embedder import default_model_path, stay_offline
from service.stores.onnx_runtime import load_tokenizer

WINDOW = 512
"""Tokens past which the tokenizer truncates. ``ModelTokens`` sends words of at most
``WORD_CHARS`` characters, far fewer tokens than any window, so it never cuts one."""


def model_tokens(environ: Mapping[str, str] = os.environ) -> ModelTokens:
    """``ModelTokens`` over the tokenizer of ``STRATA_EMBEDDING_MODEL`` (a model directory;
    the bundled all-MiniLM-L6-v2 when unset), read offline."""
    stay_offline()
    model_dir = Path(environ.get("STRATA_EMBEDDING_MODEL") or default_model_path())
    tokenizer = load_tokenizer(model_dir, WINDOW)

    def count_tokens(texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch(list(texts))]

    return ModelTokens(count_tokens)
