"""``strata export``, ``strata import`` and ``strata erase``: a namespace whole.

Each names its namespace with ``--namespace``, as every other command does. The namespace
given first, before ``--namespace`` existed, still works, so scripts written for it go on
running; it is no longer documented."""

from __future__ import annotations

import argparse
import sys
from argparse import SUPPRESS
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from service.cli import render
from service.cli.commands import connect
from service.cli.exits import OK, USAGE
from service.errors import ConfigError


def export(args: argparse.Namespace) -> int:
    """Write the namespace's export file to ``--output``, else to stdout, as it streams."""
    with ExitStack() as stack:
        client = stack.enter_context(connect(args))
        out: IO[bytes] = (
            stack.enter_context(Path(args.output).open("wb")) if args.output else sys.stdout.buffer
        )
        for piece in client.export(namespace_of(args), vectors=args.vectors):
            out.write(piece)
        out.flush()
    return OK


def import_(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        client = stack.enter_context(connect(args))
        source: IO[bytes] = sys.stdin.buffer
        if args.file != "-":
            source = stack.enter_context(Path(args.file).open("rb"))
        report = client.import_file(namespace_of(args), source, skip_bad_lines=args.skip_bad_lines)
    sys.stdout.write(render.as_json(report))
    for skipped in report.skipped:
        print(f"skipped line {skipped.line}: {skipped.reason}", file=sys.stderr)
    return OK


def erase(args: argparse.Namespace) -> int:
    namespace = namespace_of(args)
    if args.confirm != namespace:
        print(
            f"strata: erasing removes every trace of {namespace!r} for good; "
            f"repeat its name: --confirm {namespace}",
            file=sys.stderr,
        )
        return USAGE
    with connect(args) as client:
        sys.stdout.write(render.as_json(client.erase(namespace)))
    return OK


def namespace_of(args: argparse.Namespace) -> str:
    """The namespace a command acts on, from ``--namespace`` or the older positional name;
    ConfigError (a usage error) when neither or two different ones are given."""
    given: set[str] = {n for n in (args.namespace, args.positional_namespace) if n is not None}
    if len(given) != 1:
        told = "two namespaces given" if given else "no namespace given"
        raise ConfigError(f"{args.command}: {told}; name one with --namespace NAME")
    return given.pop()


def add_namespace(command: argparse.ArgumentParser) -> None:
    command.add_argument("--namespace", help="the namespace (required)")
    command.add_argument("positional_namespace", nargs="?", metavar="NAMESPACE", help=SUPPRESS)


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    exporting = subparsers.add_parser(
        "export", help="write a namespace as JSON Lines (entries, history, collections, ...)"
    )
    add_namespace(exporting)
    exporting.add_argument("--vectors", action="store_true", help="with the chunks' vectors")
    exporting.add_argument("-o", "--output", help="file to write (default: stdout)")
    exporting.set_defaults(run=export)

    importing = subparsers.add_parser(
        "import", help="read an export file into a namespace (admin; any name)"
    )
    add_namespace(importing)
    importing.add_argument("file", help="the export file, or - for stdin")
    importing.add_argument(
        "--skip-bad-lines", action="store_true", help="import the good lines, list the bad"
    )
    importing.set_defaults(run=import_)

    erasing = subparsers.add_parser(
        "erase", help="remove every trace of a namespace, leaving an audit record (admin)"
    )
    add_namespace(erasing)
    erasing.add_argument("--confirm", metavar="NAMESPACE", help="the namespace's name again")
    erasing.set_defaults(run=erase)
