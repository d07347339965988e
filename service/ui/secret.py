"""The key that signs the console's cookies: STRATA_UI_SECRET, else a random one created
once in the data directory and kept there (mode 0600), so sessions outlive a restart."""

from __future__ import annotations

import os
import secrets
import threading
from contextlib import suppress
from pathlib import Path

FILE = "ui-secret"
SECRET_BYTES = 32


class SigningSecret:
    """Read (or created) on first use: a service that never serves the console never
    writes the file."""

    def __init__(self, configured: str, data_dir: Path) -> None:
        self.configured = configured
        self.path = data_dir / FILE
        self._lock = threading.Lock()
        self._value: bytes | None = None

    def value(self) -> bytes:
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = (
                        self.configured.encode() if self.configured else kept_secret(self.path)
                    )
        return self._value


def kept_secret(path: Path) -> bytes:
    """The secret stored at ``path``, created there first if missing. The file appears
    whole or not at all (written aside, then linked in place), readable by the owner only."""
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_hex(SECRET_BYTES))
            out.flush()
            os.fsync(out.fileno())
        with suppress(FileExistsError):  # another process made it first: use theirs
            os.link(aside, path)
    finally:
        aside.unlink(missing_ok=True)
    return _read(path)


def _read(path: Path) -> bytes:
    text = path.read_text().strip()
    if len(text) < SECRET_BYTES:
        raise ValueError(f"{path} holds no usable secret: delete it to make a new one")
    return text.encode()
