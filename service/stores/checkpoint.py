"""A replica's checkpoint in its data directory: one small file, replaced whole."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


class FileCheckpoint:
    """``{"seq": n}`` in a file, written to a temporary file, synced, then renamed over
    the old one, so a crash leaves the old checkpoint or the new one, never a mix."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> int | None:
        try:
            seq = json.loads(self.path.read_text(encoding="utf-8"))["seq"]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("checkpoint %s is unreadable (%s): starting from none", self.path, exc)
            return None
        return seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else None

    def save(self, seq: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        with temporary.open("w", encoding="utf-8") as out:
            json.dump({"seq": seq}, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)
