"""Where the stores live, which folders collections may read, and how replicas share them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

from msgspec import Meta

from service.errors import ConfigError
from service.net.addresses import is_postgres, redacted
from service.settings.base import Count, Group


class StorageSettings(Group, frozen=True):
    data_dir: Path = Path("strata-data")
    """Directory holding the ledger, the Tantivy index and the embedded Chroma store."""
    chroma_url: str = ""
    """URL of a Chroma server (``http://host:port``). Empty: embedded Chroma in data_dir."""
    model_cache: str = ""
    """Where exported ONNX models are kept; empty: ``models`` in the data directory."""
    database_url: str = ""
    """PostgreSQL URL (``postgresql://user:password@host:5432/strata``) of the ledger, the
    catalog, the interaction log and the job runs every replica shares; needs
    STRATA_CHROMA_URL. Empty: SQLite files in data_dir, one process."""
    engine_timeout: float = 10.0
    """Seconds a call to the Chroma server or the Postgres database may take (a statement,
    a request, the wait for a pooled connection) before that engine counts as unavailable:
    a search then answers from keywords, a write or a read of the ledger answers 503 with
    ``Retry-After``. Well under a client's own timeout, so none waits past it."""

    @property
    def model_cache_dir(self) -> Path:
        return Path(self.model_cache) if self.model_cache else self.data_dir / "models"

    @property
    def shared(self) -> bool:
        """Whether the stores are shared by replicas (a database server), not local files."""
        return bool(self.database_url)

    def __post_init__(self) -> None:
        if not self.database_url:
            return
        if not is_postgres(self.database_url):
            raise ConfigError(
                f"STRATA_DATABASE_URL: expected a postgresql://user:password@host:port/database "
                f"URL, got {redacted(self.database_url)!r}"
            )
        if not self.chroma_url:
            raise ConfigError(
                "STRATA_DATABASE_URL is set but STRATA_CHROMA_URL is not: replicas sharing a "
                "database must share their vectors too; set STRATA_CHROMA_URL to a Chroma server"
            )


class CollectionSettings(
    Group, frozen=True, rename={"roots": "collection_roots", "max_files": "max_collection_files"}
):
    roots: str | None = None
    """Folders under which collections may be registered, separated by commas or ``:``
    (``~/notes,/srv/docs``); a collection's folder must be inside one, after links and
    ``..`` are resolved. Unset: the home directory of the user running the service when it
    has no API keys (every caller is then on this machine, and notes live there), none with
    keys (an admin key must not become a key to the server's disk until an operator says
    which part of it). Empty: none, collections are off. ``/``, system folders (``/etc``,
    ``/proc``, ``/usr``, ...) and the data directory are refused whatever this says."""
    max_files: Count = 10_000
    """Most files one collection may hold (those its mask matches): a registration over it
    is refused (422), a re-scan over it changes nothing (409). A registration answers once
    its files are embedded; a folder with more is most likely not one of notes."""
    max_file_bytes: Count = 1024 * 1024
    """Largest file a scan indexes; a larger one is skipped and listed in the scan's
    ``skipped`` with its size. 1 MiB of text is about 1,500 chunks to embed."""

    def root_folders(self, *, has_keys: bool) -> tuple[str, ...]:
        """The root folders as given, ``~`` expanded, with the default applied."""
        if self.roots is None:
            home = os.path.expanduser("~")
            return () if has_keys or home == "~" else (home,)
        given = re.split(rf"[,{re.escape(os.pathsep)}]", self.roots)
        return tuple(os.path.expanduser(root.strip()) for root in given if root.strip())


class ClusterSettings(Group, frozen=True):
    replica_name: str = ""
    """This process's name among the replicas of a cluster, in ``/health`` and in the runs
    of the jobs; empty: ``<hostname>:<port>``."""
    replica_poll_ms: Count = 200
    """How often, in milliseconds, a replica of a cluster reads the ledger's change log and
    applies what other replicas changed to its own keyword index."""
    change_retention_days: Annotated[float, Meta(gt=0)] = 7.0
    """Changes are kept in the ledger's change log this many days (``trim_changes``); a
    replica away longer rebuilds its keyword index from the ledger when it comes back."""
