"""``strata migrate``: copy a service's state between a data directory and Postgres, here."""

from __future__ import annotations

import argparse
import os
import sys

from service.cli.exits import OK
from service.errors import ConfigError
from service.net.addresses import is_postgres, redacted
from service.settings import StorageSettings, variable


def migrate(args: argparse.Namespace) -> int:
    from service.bootstrap import copy_state

    if args.source is not None:
        if args.data is not None:
            raise ConfigError("--data names the directory copied from: give --from or --data")
        source, target = args.source, args.to
    else:
        data = args.data or os.environ.get(variable("data_dir")) or StorageSettings().data_dir
        source, target = str(data), args.to

    def progress(table: str, done: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{table}: {done} rows", end="", file=sys.stderr)

    copied = copy_state(source, target, force=args.force, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"copied {redacted(source)} to {redacted(target)}")
    for table, rows in copied.rows.items():
        extra = f"  ({copied.vectors} with vectors)" if table == "chunks" else ""
        print(f"  {table:<13}{rows:>10}{extra}")
    if is_postgres(target):
        print(
            "Chroma and Tantivy are derived, not copied: each replica rebuilds its keyword "
            "index as it starts; fill the Chroma server once with `strata rebuild` against "
            "one replica."
        )
    else:
        removed = ", ".join(copied.cleared) or "nothing"
        print(
            f"indexes removed from {target}: {removed}; the service rebuilds them from the "
            "ledger (no embedding) when it starts."
        )
    return OK
