"""What a write of words the service has never seen costs, against one of words it has.

    python -m bench.unseen_words [--chars 1000000] [--rounds 4] [--seed 5]

A throw-away service (this process's environment, open mode) is given one tier E event of
``--chars`` characters of random words of about five letters. Then, ``--rounds`` times: a
write of the same words in another order (every word known: its token count remembered),
one of as many characters of words never seen, and one of as many characters drawn from a
thousand of the known words. The first two are the same size and the same kind of words:
the difference is what counting new words costs. The third also has fewer distinct words
for the keyword index to take in. It prints each write's time and the server's CPU time,
and the ratios of the medians (docs/operations/security.md, "Fairness")."""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections.abc import Sequence

import httpx

from bench.common import machine_info
from bench.load.processes import tree_cpu
from bench.server import listener_pid, serve, service_commit

_LETTERS = b"abcdefghijklmnopqrstuvwxyz"
_WORDS = bytes.maketrans(bytes(range(256)), (_LETTERS * 9)[:216] + b" " * 40)


def random_words(rng: random.Random, chars: int) -> str:
    """``chars`` characters of random lowercase words of about five letters."""
    return "w" + rng.randbytes(chars - 2).translate(_WORDS).decode() + "w"


def reordered(text: str, rng: random.Random) -> str:
    """The words of ``text`` in another order, between the same runs of spaces."""
    parts = re.split(r"(\s+)", text)
    words = parts[::2]
    rng.shuffle(words)
    parts[::2] = words
    return "".join(parts)


def few_of(text: str, rng: random.Random, distinct: int = 1_000) -> str:
    """As many characters of words drawn from ``distinct`` of the words of ``text``."""
    vocabulary = text.split()[:distinct]
    words = rng.choices(vocabulary, k=len(text) // 2)  # a word and a space: 2 at the least
    return " ".join(words)[: len(text)]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.unseen_words")
    p.add_argument("--chars", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--seed", type=int, default=5)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    known = random_words(rng, args.chars)
    print(f"# unseen words, {args.chars:,} characters a write; {machine_info()}")
    print(f"commit {service_commit()}")
    times: dict[str, list[tuple[float, float]]] = {"known": [], "unseen": [], "few known": []}
    with serve(None) as url, httpx.Client(base_url=url, timeout=600) as client:
        pid = listener_pid(url)
        pids = [pid] if pid is not None else []

        def write(text: str) -> tuple[float, float]:
            used, began = tree_cpu(pids), time.perf_counter()
            answer = client.post("/v1/events", json={"events": [{"tier": "E", "text": text}]})
            answer.raise_for_status()
            return time.perf_counter() - began, tree_cpu(pids) - used

        write(known)
        for _ in range(args.rounds):
            times["known"].append(write(reordered(known, rng)))
            times["unseen"].append(write(random_words(rng, args.chars)))
            times["few known"].append(write(few_of(known, rng)))
    print("| write | seconds | server CPU s |")
    print("|---|---|---|")
    for kind, runs in times.items():
        walls = ", ".join(f"{w:.3f}" for w, _ in runs)
        cpus = ", ".join(f"{c:.2f}" for _, c in runs)
        print(f"| {kind} words | {walls} | {cpus} |")
    median = {kind: statistics.median(w for w, _ in runs) for kind, runs in times.items()}
    for kind in ("known", "few known"):
        print(f"unseen / {kind}, median seconds: {median['unseen'] / median[kind]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
