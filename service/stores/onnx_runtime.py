"""What the ONNX Runtime models share: CPU sessions, length-sorted padded batches, and a
runner that takes texts through them."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np


def open_session(graph: Path, threads: int = 0) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads if threads > 0 else (os.cpu_count() or 1)
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


def load_tokenizer(model_dir: Path, max_length: int) -> Any:
    """The model's fast tokenizer, truncating at ``max_length`` tokens and not padding
    (``padded_batches`` pads)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length)
    tokenizer.no_padding()
    return tokenizer


class Batch(NamedTuple):
    rows: list[int]
    """Positions of the batch's texts in the input."""
    feed: dict[str, np.ndarray]
    mask: np.ndarray


def padded_batches(
    encoded: Sequence[Any], inputs: set[str], *, token_budget: int, most: int
) -> Iterator[Batch]:
    """Tokenized texts in batches of similar length (padding least), each holding at most
    ``token_budget`` tokens with padding and ``most`` texts: measured on two cores, many short
    texts run best together and long ones in small batches."""
    order = sorted(range(len(encoded)), key=lambda n: len(encoded[n].ids))
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and end - start < most:
            width = len(encoded[order[end]].ids)
            if (end - start + 1) * width > token_budget:
                break
            end += 1
        rows = order[start:end]
        width = max(len(encoded[n].ids) for n in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        types, mask = np.zeros_like(ids), np.zeros_like(ids)
        for row, n in enumerate(rows):
            length = len(encoded[n].ids)
            ids[row, :length] = encoded[n].ids
            types[row, :length] = encoded[n].type_ids
            mask[row, :length] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = types
        yield Batch(rows, feed, mask)
        start = end


class Runner:
    """A graph's sessions, and how tokenized texts go through them: in length-sorted padded
    batches, or, for a graph whose activations are quantized with one scale per call
    (``alone``: int8 weights), one text a call, so that a text's output never depends on the
    texts beside it."""

    def __init__(self, graph: Path, threads: int = 0, *, alone: bool = False) -> None:
        self.alone = alone
        self._graph = graph
        self._threads = threads
        self._spread = ThreadPoolExecutor(threads or os.cpu_count() or 1, "onnx")
        """Runs texts taken one a call side by side, a thread each."""

    # Each session is opened when first used: a graph run one text a call never needs the
    # one on every core, and a cross-encoder never runs on one thread.
    @functools.cached_property
    def session(self) -> Any:
        """A session on ``threads`` threads (0: one per core)."""
        return open_session(self._graph, self._threads)

    @functools.cached_property
    def single(self) -> Any:
        """A session on one thread."""
        return open_session(self._graph, 1)

    @functools.cached_property
    def inputs(self) -> set[str]:
        return {i.name for i in (self.single if self.alone else self.session).get_inputs()}

    def run(
        self, encoded: Sequence[Any], *, token_budget: int, most: int, every_core: bool
    ) -> Iterable[tuple[Batch, np.ndarray]]:
        """Each batch of ``encoded`` (``padded_batches``; one text each when ``alone``) with
        the graph's first output for it. ``every_core``: the call may take every core; else
        it runs on one thread, leaving the others to other callers."""
        most = 1 if self.alone else most
        batches = list(padded_batches(encoded, self.inputs, token_budget=token_budget, most=most))
        if not every_core or (len(batches) == 1 and self.alone):
            return ((batch, self._output(self.single, batch)) for batch in batches)
        if self.alone:
            outputs = self._spread.map(functools.partial(self._output, self.single), batches)
            return zip(batches, outputs, strict=True)
        return ((batch, self._output(self.session, batch)) for batch in batches)

    @staticmethod
    def _output(session: Any, batch: Batch) -> np.ndarray:
        output: np.ndarray = session.run(None, batch.feed)[0]
        return output
