"""The ``strata`` command line: its commands, their arguments, and the function each runs."""

from __future__ import annotations

import argparse
from typing import Any, get_args

from schemas import wire
from service.cli import commands, portable
from service.cli.calibrate import calibrate
from service.cli.migrate import migrate
from service.cli.serve import serve

TIERS = get_args(wire.Tier)
MIN_SCORE = "leave out what scores below this (default: the service's relevance floor; 0: none)"
NAMESPACE = "namespace to act on (default: the API key's only namespace, else 'default')"
DEPLOYMENT = (
    "the deployment's calibration, which serves every namespace without one of its own, from "
    "every namespace's reference questions (a key of every namespace)"
)
MODES = get_args(wire.Mode)


class DefaultsShown(argparse.HelpFormatter):
    """Help that ends each option taking a value with its default, where it has one: an
    option whose default the service or the settings decide says so in its own words."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help = action.help or ""
        unset = action.default is None or action.default is argparse.SUPPRESS
        if unset or action.nargs == 0 or not action.option_strings or "%(default)" in help:
            return action.help
        return f"{help} (default: %(default)s)".lstrip()


class Parser(argparse.ArgumentParser):
    """An argument parser whose commands' help shows their defaults alike."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)


def parser() -> argparse.ArgumentParser:
    """The parser; each command sets ``run``, the function that takes the parsed
    arguments and returns the exit code."""
    top = Parser(
        prog="strata",
        description="Tiered memory for AI agents. Client commands use STRATA_URL "
        "(default http://127.0.0.1:8080) and STRATA_API_KEY.",
    )
    top.add_argument("--url", help="service URL (default $STRATA_URL)")
    top.add_argument("--api-key", help="API key (default $STRATA_API_KEY)")
    subparsers = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serving = subparsers.add_parser("serve", help="run the REST service")
    serving.add_argument("--host", help="interface to bind (default 127.0.0.1)")
    serving.add_argument("--port", type=int, help="port (default 8080)")
    serving.add_argument("--data-dir", help="where entries are kept (default ./strata-data)")
    serving.set_defaults(run=serve)

    add = subparsers.add_parser("add", help="record an event")
    add.add_argument("text", help="what to remember")
    add.add_argument(
        "--tier",
        choices=TIERS,
        default="A",
        help="A: kept for good; C: working context, archived after a week; E: logs, never embedded",
    )
    add.add_argument("--id", help="the entry's id (default: a new one)")
    add.add_argument("--namespace", help=NAMESPACE)
    add.add_argument("--speaker", help="who said it")
    add.add_argument("--chain-type", help="kind of record, such as standup")
    add.add_argument(
        "--type", help="what it is (decision, fact, ...): a question about decisions finds "
        "decisions first",
    )  # fmt: skip
    add.add_argument("--tag", action="append", dest="tags", help="repeatable")
    add.add_argument(
        "--supersedes",
        action="append",
        metavar="ID",
        help="id of an entry this one replaces (repeatable): kept, left out of searches",
    )
    add.set_defaults(run=commands.add)

    search = subparsers.add_parser("search", help="search memory")
    search.add_argument("query")
    search.add_argument("--mode", choices=MODES, default="auto", help="which lists to search")
    search.add_argument("--tier", action="append", dest="tiers", choices=TIERS, help="repeatable")
    search.add_argument("-n", "--limit", type=int, default=10, help="most hits")
    search.add_argument("--namespace", help=NAMESPACE)
    search.add_argument("--include-archived", action="store_true")
    search.add_argument(
        "--include-superseded", action="store_true", help="show replaced entries too, marked"
    )
    search.add_argument("--as-of", metavar="TIME", help="memory as it held then (ISO 8601)")
    search.add_argument("--min-score", type=float, metavar="SCORE", help=MIN_SCORE)
    fmt = search.add_mutually_exclusive_group()
    for name in ("json", "md", "csv"):
        fmt.add_argument(f"--{name}", dest="format", action="store_const", const=name)
    search.set_defaults(run=commands.search, format="text")

    retrieve = subparsers.add_parser(
        "retrieve", help="the best grounded entries for a question, with a strong-match verdict"
    )
    retrieve.add_argument("question")
    retrieve.add_argument("-n", "--top-n", type=int, default=5, help="most entries")
    retrieve.add_argument("--asker", help="who asks, kept in the interaction log")
    retrieve.add_argument("--namespace", help=NAMESPACE)
    retrieve.add_argument(
        "--include-superseded", action="store_true", help="answer from replaced entries too"
    )
    retrieve.add_argument("--as-of", metavar="TIME", help="memory as it held then (ISO 8601)")
    retrieve.add_argument("--json", action="store_true")
    retrieve.set_defaults(run=commands.retrieve)

    context = subparsers.add_parser(
        "context", help="memory for a question as one cited block within a token budget"
    )
    context.add_argument("question")
    context.add_argument(
        "-t", "--max-tokens", type=int, default=512, help="most tokens of the block"
    )
    context.add_argument("--tier", action="append", dest="tiers", choices=TIERS, help="repeatable")
    context.add_argument("--tag", action="append", dest="tags", help="repeatable")
    context.add_argument("--namespace", help=NAMESPACE)
    context.add_argument("--asker", help="who asks, kept in the interaction log")
    context.add_argument("--min-score", type=float, metavar="SCORE", help=MIN_SCORE)
    context.add_argument("--as-of", metavar="TIME", help="memory as it held then (ISO 8601)")
    shape = context.add_mutually_exclusive_group()
    shape.add_argument("--text", dest="format", action="store_const", const="text")
    shape.add_argument("--json", dest="format", action="store_const", const="json")
    context.set_defaults(run=commands.context, format="markdown")

    calibrating = subparsers.add_parser(
        "calibrate",
        help="fit the learned fusion's ranking model, answer_confidence and its strong_match "
        "threshold on BEIR-format sets (runs locally, in a throw-away data directory, with the "
        "STRATA_* settings)",
    )
    calibrating.add_argument(
        "--dataset",
        required=True,
        action="append",
        help="folder with corpus.jsonl, queries.jsonl, qrels.tsv; repeat to fit on several",
    )
    calibrating.add_argument(
        "-o", "--output", help="write the answer_confidence calibration to this file"
    )
    calibrating.add_argument("--ranking-output", help="write the ranking model to this file")
    calibrating.add_argument(
        "--keep-ranking",
        action="store_true",
        help="fit answer_confidence only, searching with the configured ranking model",
    )
    calibrating.add_argument(
        "--weight",
        action="append",
        metavar="NAME=WEIGHT",
        help="how much a set (by folder name) weighs in the ranking fit; 1 when not given",
    )
    calibrating.add_argument(
        "--small",
        type=int,
        default=200,
        metavar="N",
        help="also ask N questions of each set in a small namespace of their own: their "
        "evidence and 24 other entries (0: none)",
    )
    calibrating.add_argument(
        "-l",
        "--leave-one-out",
        action="store_true",
        help="also score each set by models fitted on the other sets alone",
    )
    calibrating.add_argument("-n", "--top-n", type=int, default=5, help="entries per question")
    calibrating.add_argument("--max-queries", type=int)
    calibrating.add_argument("--json", action="store_true")
    calibrating.set_defaults(run=calibrate)

    migrating = subparsers.add_parser(
        "migrate",
        help="copy entries (with their vectors), collections, interactions and job runs "
        "between a data directory and a Postgres database (runs locally)",
        description="strata migrate --to postgresql://... [--data DIR] copies a data "
        "directory into a database a cluster shares; strata migrate --from postgresql://... "
        "--to DIR copies it back. Nothing is embedded again. A target that holds anything "
        "is refused unless --force.",
    )
    migrating.add_argument("--to", required=True, help="postgresql:// URL, or a directory")
    migrating.add_argument("--from", dest="source", help="postgresql:// URL to copy from")
    migrating.add_argument(
        "--data", help="data directory to copy from (default $STRATA_DATA_DIR or strata-data)"
    )
    migrating.add_argument("--force", action="store_true", help="replace what the target holds")
    migrating.set_defaults(run=migrate)

    get = subparsers.add_parser(
        "get", help="show an entry by id, or a document by <collection>/<path>[:line]"
    )
    get.add_argument("id", help="entry id, or document path (with '/'), optionally :LINE")
    get.add_argument("--namespace", help=NAMESPACE)
    get.add_argument("--history", action="store_true", help="show what happened to an entry")
    get.add_argument("-l", "--lines", type=int, help="how many lines of a document")
    get.set_defaults(run=commands.get)

    multi = subparsers.add_parser("multi-get", help="documents matching a glob or a list")
    multi.add_argument("pattern")
    multi.add_argument("--max-bytes", type=int, default=65536, help="skip larger files")
    multi.set_defaults(run=commands.multi_get)

    collection = subparsers.add_parser("collection", help="folders of markdown kept searchable")
    actions = collection.add_subparsers(dest="action", required=True, metavar="ACTION")
    c_add = actions.add_parser("add", help="register a folder and index it (admin)")
    c_add.add_argument("name")
    c_add.add_argument("path", help="folder on the service's machine")
    c_add.add_argument("--mask", help="glob of files to index (default **/*.md)")
    c_add.add_argument("--namespace", help=NAMESPACE)
    c_add.add_argument("--tier", choices=TIERS)
    c_add.set_defaults(run=commands.collection_add)
    actions.add_parser("list", help="list collections").set_defaults(run=commands.collection_list)
    for verb, run, text in [
        ("update", commands.collection_update, "re-scan for changes (admin)"),
        ("remove", commands.collection_remove, "forget it (admin)"),
    ]:
        action = actions.add_parser(verb, help=text)
        action.add_argument("name")
        action.set_defaults(run=run)

    status = subparsers.add_parser("status", help="health and stats of the service")
    status.set_defaults(run=commands.status)

    mcp = subparsers.add_parser(
        "mcp",
        help="serve the MCP tools over stdio, backed by the service at --url",
        description="Serve strata's MCP tools on stdin/stdout for an MCP client. Tool calls go "
        "to the service at --url ($STRATA_URL) with --api-key ($STRATA_API_KEY), given before "
        "the command: strata --url http://127.0.0.1:8080 mcp",
    )
    mcp.set_defaults(run=commands.mcp)

    promote = subparsers.add_parser("promote", help="make tier C entries tier A (admin)")
    promote.add_argument("ids", nargs="+")
    promote.add_argument("--namespace", help=NAMESPACE)
    promote.set_defaults(run=commands.promote)

    jobs = subparsers.add_parser("jobs", help="list the lifecycle jobs, or run one (admin)")
    jobs.add_argument("--run", dest="job", metavar="NAME", help="run this job now")
    jobs.set_defaults(run=commands.jobs)

    rebuild = subparsers.add_parser("rebuild", help="rebuild the indexes from the ledger (admin)")
    rebuild.set_defaults(run=commands.rebuild)

    reference = subparsers.add_parser(
        "reference",
        help="record a question whose answer is known: the entries that answer it, or that "
        "nothing in memory does",
    )
    reference.add_argument("question", help="as agents ask it")
    reference.add_argument(
        "--answer",
        dest="answers",
        action="append",
        metavar="ID",
        help="an entry that answers it (again for each other one)",
    )
    reference.add_argument("--nothing", action="store_true", help="nothing in memory answers it")
    reference.add_argument("--namespace", help=NAMESPACE)
    reference.set_defaults(run=commands.reference)

    sweep = subparsers.add_parser(
        "sweep",
        help="fit a namespace's strong-match threshold and floor on its reference questions "
        "(admin)",
    )
    sweep.add_argument("--namespace", help=NAMESPACE)
    sweep.add_argument("--deployment", action="store_true", help=DEPLOYMENT)
    sweep.add_argument(
        "--format", choices=("text", "json"), default="text", help="how the sweep is shown"
    )
    sweep.set_defaults(run=commands.sweep)

    calibration = subparsers.add_parser(
        "calibration", help="the calibration in force and the fits of sweeps; roll back (admin)"
    )
    calibration.add_argument("--namespace", help=NAMESPACE)
    calibration.add_argument("--deployment", action="store_true", help=DEPLOYMENT)
    calibration.add_argument(
        "--rollback", type=int, metavar="VERSION", help="apply this fit again (0: shipped)"
    )
    calibration.set_defaults(run=commands.calibration)

    portable.add_parsers(subparsers)
    return top
