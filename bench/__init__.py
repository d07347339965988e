"""Benchmarks of the strata service, run from the repository root as modules.

- ``python -m bench.quality DATASET_DIR``: retrieval quality on a BEIR-format dataset, and
  what each mode costs.
- ``python -m bench.load``: ingest and search load on a generated tiered workload, with peers.
- ``python -m bench.workload``: how much embedding work the tiers avoid.
- ``python -m bench.embedders``: the embedding backends side by side.
- ``python -m bench.build_cross_encoder OUT_DIR``: a random-weight cross-encoder for latency.

``bench.common`` holds the helpers they share, ``bench.server`` the service process they
start and measure, and ``bench.cost`` the service's CPU time and model work around a pass.
"""
