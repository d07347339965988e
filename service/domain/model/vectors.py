"""Vectors as the ledger holds them."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
"""An entry's chunk vectors, one row per chunk (chunks x dimension), in single precision."""
