"""``strata export``, ``strata import`` and ``strata erase``: a namespace whole."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import IO

from service.cli import render
from service.cli.commands import connect
from service.cli.exits import OK, USAGE


def export(args: argparse.Namespace) -> int:
    """Write the namespace's export file to ``--output``, else to stdout, as it streams."""
    with ExitStack() as stack:
        client = stack.enter_context(connect(args))
        out: IO[bytes] = (
            stack.enter_context(Path(args.output).open("wb")) if args.output else sys.stdout.buffer
        )
        for piece in client.export(args.namespace, vectors=args.vectors):
            out.write(piece)
        out.flush()
    return OK


def import_(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        client = stack.enter_context(connect(args))
        source: IO[bytes] = sys.stdin.buffer
        if args.file != "-":
            source = stack.enter_context(Path(args.file).open("rb"))
        report = client.import_file(args.namespace, source, skip_bad_lines=args.skip_bad_lines)
    sys.stdout.write(render.as_json(report))
    for skipped in report.skipped:
        print(f"skipped line {skipped.line}: {skipped.reason}", file=sys.stderr)
    return OK


def erase(args: argparse.Namespace) -> int:
    if args.confirm != args.namespace:
        print(
            f"strata: erasing removes every trace of {args.namespace!r} for good; "
            f"repeat its name: --confirm {args.namespace}",
            file=sys.stderr,
        )
        return USAGE
    with connect(args) as client:
        sys.stdout.write(render.as_json(client.erase(args.namespace)))
    return OK


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    exporting = subparsers.add_parser(
        "export", help="write a namespace as JSON Lines (entries, history, collections, ...)"
    )
    exporting.add_argument("namespace")
    exporting.add_argument("--vectors", action="store_true", help="with the chunks' vectors")
    exporting.add_argument("-o", "--output", help="file to write (default: stdout)")
    exporting.set_defaults(run=export)

    importing = subparsers.add_parser(
        "import", help="read an export file into a namespace (admin; any name)"
    )
    importing.add_argument("namespace")
    importing.add_argument("file", help="the export file, or - for stdin")
    importing.add_argument(
        "--skip-bad-lines", action="store_true", help="import the good lines, list the bad"
    )
    importing.set_defaults(run=import_)

    erasing = subparsers.add_parser(
        "erase", help="remove every trace of a namespace, leaving an audit record (admin)"
    )
    erasing.add_argument("namespace")
    erasing.add_argument("--confirm", metavar="NAMESPACE", help="the namespace's name again")
    erasing.set_defaults(run=erase)
