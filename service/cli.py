"""The ``strata`` command: run the service, or talk to a running one.

Exit codes: 0 success, 1 the service refused the request (4xx/5xx), 2 bad usage or
configuration, 3 the service could not be reached.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import ipaddress
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from service.errors import ConfigError
from service.settings import Settings

log = logging.getLogger("strata")

OK, REFUSED, USAGE, UNREACHABLE = 0, 1, 2, 3


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ConfigError as exc:
        print(f"strata: {exc}", file=sys.stderr)
        return USAGE
    except Exception as exc:
        return _client_failure(exc)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="strata",
        description="Tiered memory for AI agents. Client commands use STRATA_URL "
        "(default http://127.0.0.1:8080) and STRATA_API_KEY.",
    )
    top.add_argument("--url", help="service URL (default $STRATA_URL)")
    top.add_argument("--api-key", help="API key (default $STRATA_API_KEY)")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the REST service")
    serve.add_argument("--host", help="interface to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8080)")
    serve.add_argument("--data-dir", help="where entries are kept (default ./strata-data)")
    serve.set_defaults(run=_serve)

    add = commands.add_parser("add", help="record an event")
    add.add_argument("text")
    add.add_argument("--tier", choices="ACE", default="A")
    add.add_argument("--id")
    add.add_argument("--namespace")
    add.add_argument("--speaker")
    add.add_argument("--chain-type")
    add.add_argument("--tag", action="append", dest="tags", help="repeatable")
    add.set_defaults(run=_add)

    search = commands.add_parser("search", help="search memory")
    search.add_argument("query")
    search.add_argument("--mode", choices=["auto", "bm25", "vector", "hybrid"], default="auto")
    search.add_argument("--tier", action="append", dest="tiers", choices="ACE", help="repeatable")
    search.add_argument("-n", "--limit", type=int, default=10)
    search.add_argument("--namespace")
    search.add_argument("--include-archived", action="store_true")
    fmt = search.add_mutually_exclusive_group()
    for name in ("json", "md", "csv"):
        fmt.add_argument(f"--{name}", dest="format", action="store_const", const=name)
    search.set_defaults(run=_search, format="text")

    retrieve = commands.add_parser(
        "retrieve", help="the best grounded entries for a question, with a strong-match verdict"
    )
    retrieve.add_argument("question")
    retrieve.add_argument("-n", "--top-n", type=int, default=5)
    retrieve.add_argument("--asker", help="who asks, kept in the interaction log")
    retrieve.add_argument("--namespace")
    retrieve.add_argument("--json", action="store_true")
    retrieve.set_defaults(run=_retrieve)

    calibrate = commands.add_parser(
        "calibrate",
        help="sweep the strong_match threshold on a BEIR-format set (runs locally, in a "
        "throw-away data directory, with the STRATA_* settings)",
    )
    calibrate.add_argument("--dataset", required=True, help="folder with corpus.jsonl, ...")
    calibrate.add_argument("-n", "--top-n", type=int, default=5)
    calibrate.add_argument("--max-queries", type=int)
    calibrate.add_argument("--json", action="store_true")
    calibrate.set_defaults(run=_calibrate)

    get = commands.add_parser(
        "get", help="show an entry by id, or a document by <collection>/<path>[:line]"
    )
    get.add_argument("id", help="entry id, or document path (with '/'), optionally :LINE")
    get.add_argument("--namespace")
    get.add_argument("--history", action="store_true", help="show what happened to an entry")
    get.add_argument("-l", "--lines", type=int, help="how many lines of a document")
    get.set_defaults(run=_get)

    multi = commands.add_parser("multi-get", help="documents matching a glob or a list")
    multi.add_argument("pattern")
    multi.add_argument("--max-bytes", type=int, default=65536)
    multi.set_defaults(run=_multi_get)

    collection = commands.add_parser("collection", help="folders of markdown kept searchable")
    actions = collection.add_subparsers(dest="action", required=True, metavar="ACTION")
    c_add = actions.add_parser("add", help="register a folder and index it (admin)")
    c_add.add_argument("name")
    c_add.add_argument("path", help="folder on the service's machine")
    c_add.add_argument("--mask", help="glob of files to index (default **/*.md)")
    c_add.add_argument("--namespace")
    c_add.add_argument("--tier", choices="ACE")
    c_add.set_defaults(run=_collection_add)
    actions.add_parser("list", help="list collections").set_defaults(run=_collection_list)
    for verb, run, text in [
        ("update", _collection_update, "re-scan for changes"),
        ("remove", _collection_remove, "forget it (admin)"),
    ]:
        action = actions.add_parser(verb, help=text)
        action.add_argument("name")
        action.set_defaults(run=run)

    status = commands.add_parser("status", help="health and stats of the service")
    status.set_defaults(run=_status)

    mcp = commands.add_parser(
        "mcp",
        help="serve the MCP tools over stdio, backed by the service at --url",
        description="Serve strata's MCP tools on stdin/stdout for an MCP client. Tool calls go "
        "to the service at --url ($STRATA_URL) with --api-key ($STRATA_API_KEY), given before "
        "the command: strata --url http://127.0.0.1:8080 mcp",
    )
    mcp.set_defaults(run=_mcp)

    promote = commands.add_parser("promote", help="make tier C entries tier A (admin)")
    promote.add_argument("ids", nargs="+")
    promote.add_argument("--namespace")
    promote.set_defaults(run=_promote)

    jobs = commands.add_parser("jobs", help="list the lifecycle jobs, or run one (admin)")
    jobs.add_argument("--run", dest="job", metavar="NAME", help="run this job now")
    jobs.set_defaults(run=_jobs)

    rebuild = commands.add_parser("rebuild", help="rebuild the indexes from the ledger (admin)")
    rebuild.set_defaults(run=_rebuild)
    return top


def _client(args: argparse.Namespace) -> Any:
    from service.client import StrataClient

    return StrataClient(args.url, api_key=args.api_key)


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _add(args: argparse.Namespace) -> int:
    with _client(args) as client:
        print(
            client.remember(
                args.text,
                tier=args.tier,
                id=args.id,
                namespace=args.namespace,
                speaker=args.speaker,
                chain_type=args.chain_type,
                tags=args.tags,
            )
        )
    return OK


def _search(args: argparse.Namespace) -> int:
    with _client(args) as client:
        found = client.search(
            args.query,
            mode=args.mode,
            tiers=args.tiers,
            limit=args.limit,
            namespace=args.namespace,
            include_archived=args.include_archived or None,
        )
    render: dict[str, Callable[[dict[str, Any]], None]] = {
        "json": _print_json,
        "md": _search_md,
        "csv": _search_csv,
        "text": _search_text,
    }
    render[args.format](found)
    return OK


def _search_text(found: dict[str, Any]) -> None:
    for hit in found["results"]:
        flag = " (archived)" if hit["archived"] else ""
        where = f"{hit['file']}:{hit['lines']}" if hit.get("file") else hit["id"]
        print(f"{hit['score']:.3f}  {hit['tier']}  {where}{flag}")
        print(f"       {hit['snippet']}")
    for reason in found["degraded"]:
        print(f"degraded: {reason}", file=sys.stderr)


def _search_md(found: dict[str, Any]) -> None:
    print("| score | tier | id | snippet |\n|---:|---|---|---|")
    for hit in found["results"]:
        snippet = hit["snippet"].replace("|", "\\|").replace("\n", " ")
        print(f"| {hit['score']:.3f} | {hit['tier']} | {hit['id']} | {snippet} |")


def _search_csv(found: dict[str, Any]) -> None:
    out = csv.writer(sys.stdout)
    out.writerow(["score", "tier", "id", "namespace", "timestamp", "snippet"])
    for hit in found["results"]:
        out.writerow(
            [
                hit["score"],
                hit["tier"],
                hit["id"],
                hit["namespace"],
                hit["timestamp"],
                hit["snippet"],
            ]
        )


def _retrieve(args: argparse.Namespace) -> int:
    with _client(args) as client:
        found = client.retrieve(
            args.question, top_n=args.top_n, asker=args.asker, namespace=args.namespace
        )
    if args.json:
        _print_json(found)
        return OK
    verdict = "strong match" if found["strong_match"] else "no strong match"
    print(
        f"{verdict} (best relevance {found['best_relevance']:.3f}, "
        f"threshold {found['threshold']:.2f}); interaction {found['interaction_id']}"
    )
    for entry in found["entries"]:
        where = f"{entry['file']}:{entry['lines']}" if entry.get("file") else entry["id"]
        print(f"{entry['score']:.3f}  rel {entry['relevance_score']:.3f}  {entry['tier']}  {where}")
        print(f"       {entry['snippet']}")
    for pattern in found["reasoning_patterns"]:
        print(f"pattern {pattern['id']}: {pattern['text']}")
        for variant in pattern["variants"]:
            print(f"       - {variant}")
    for reason in found["degraded"]:
        print(f"degraded: {reason}", file=sys.stderr)
    return OK


def _calibrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from service import calibrate

    dataset = Path(args.dataset)
    if not (dataset / "corpus.jsonl").is_file() or not (dataset / "qrels.tsv").is_file():
        raise ConfigError(
            f"{dataset} is not a BEIR-format set (corpus.jsonl, queries.jsonl, qrels.tsv)"
        )
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env(os.environ)
    observed = calibrate.observe(
        settings,
        dataset,
        top_n=args.top_n,
        max_queries=args.max_queries,
        progress=lambda stage, done, total: _progress(done, total, stage),
    )
    print(file=sys.stderr)
    points = calibrate.sweep(observed)
    chosen = calibrate.recommend(points)
    if args.json:
        _print_json(
            {
                "questions": len(observed),
                "answerable": sum(1 for o in observed if o.answerable),
                "points": [
                    {**dataclasses.asdict(p), "f1": round(p.f1, 6), "j": round(p.youden, 6)}
                    for p in points
                ],
                "recommended": chosen.threshold,
            }
        )
    else:
        print(calibrate.report(points, chosen, observed))
    return OK


def _get(args: argparse.Namespace) -> int:
    with _client(args) as client:
        if "/" in args.id:
            path, _, line = args.id.rpartition(":") if _has_line(args.id) else (args.id, "", "")
            doc = client.get_document(path, int(line) if line else 1, args.lines)
            print(doc["text"])
            return OK
        fetch = client.history if args.history else client.get_entry
        _print_json(fetch(args.id, args.namespace))
    return OK


def _has_line(path: str) -> bool:
    head, sep, tail = path.rpartition(":")
    return bool(sep) and tail.isdigit() and not head.endswith("strata")


def _multi_get(args: argparse.Namespace) -> int:
    with _client(args) as client:
        found = client.get_documents(args.pattern, args.max_bytes)
    for doc in found["documents"]:
        print(f"==> {doc['path']} <==\n{doc['text']}\n")
    for skipped in found["skipped"]:
        print(f"skipped {skipped['path']}: {skipped['reason']}", file=sys.stderr)
    return OK


def _collection_add(args: argparse.Namespace) -> int:
    with _client(args) as client:
        print(f"indexing {args.path}", file=sys.stderr)
        _print_json(
            _with_scan_progress(
                args,
                lambda: client.add_collection(
                    args.name, args.path, mask=args.mask, namespace=args.namespace, tier=args.tier
                ),
            )
        )
    return OK


def _with_scan_progress(args: argparse.Namespace, scan: Callable[[], Any]) -> Any:
    """Run ``scan`` (a request that indexes collection ``args.name``) while a second
    connection polls the collection's progress into a bar on stderr."""
    import threading

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = scan()
        except Exception as exc:  # re-raised below, in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    shown = False
    with _client(args) as watcher:
        while worker.is_alive():
            worker.join(0.5)
            try:
                progress = watcher.collection(args.name).get("scanning")
            except Exception:  # not registered yet, or gone: nothing to show
                progress = None
            if progress and worker.is_alive():
                _progress(progress["done"], progress["total"], "indexing")
                shown = True
    if shown:
        print(file=sys.stderr)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _collection_list(args: argparse.Namespace) -> int:
    with _client(args) as client:
        for c in client.collections()["collections"]:
            print(f"{c['name']}\t{c['files']} files\t{c['tier']}\t{c['namespace']}\t{c['path']}")
    return OK


def _collection_update(args: argparse.Namespace) -> int:
    with _client(args) as client:
        _print_json(_with_scan_progress(args, lambda: client.update_collection(args.name)))
    return OK


def _collection_remove(args: argparse.Namespace) -> int:
    with _client(args) as client:
        _print_json(client.remove_collection(args.name))
    return OK


def _status(args: argparse.Namespace) -> int:
    with _client(args) as client:
        _print_json({"health": client.health(), "stats": client.stats()})
    return OK


def _mcp(args: argparse.Namespace) -> int:
    from service.mcp.stdio import serve_stdio

    # stdout carries the protocol: logs go to stderr, before the MCP SDK configures its own.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    with _client(args) as client:
        serve_stdio(client)
    return OK


def _promote(args: argparse.Namespace) -> int:
    with _client(args) as client:
        _print_json(client.promote(args.ids, args.namespace))
    return OK


def _jobs(args: argparse.Namespace) -> int:
    with _client(args) as client:
        _print_json(client.run_job(args.job) if args.job else client.jobs())
    return OK


def _rebuild(args: argparse.Namespace) -> int:
    with _client(args) as client:
        status = client.rebuild()
        while status["state"] == "running":
            _progress(status["done"], status["total"])
            time.sleep(0.5)
            status = client.rebuild_status()
        _progress(status["done"], status["total"])
        print(file=sys.stderr)
        _print_json(status)
    return OK if status["state"] == "done" else REFUSED


def _progress(done: int, total: int, label: str = "") -> None:
    width = 30
    filled = width * done // total if total else width
    bar = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    print(f"\r{label + ' ' if label else ''}{bar}", end="", file=sys.stderr)


def _client_failure(exc: Exception) -> int:
    import httpx

    from service.client import StrataClientError

    if isinstance(exc, StrataClientError):
        print(f"strata: {exc}", file=sys.stderr)
        for error in exc.problem.get("errors", []):
            print(f"  {error.get('field')}: {error.get('message')}", file=sys.stderr)
        return REFUSED
    if isinstance(exc, httpx.TransportError):
        print(f"strata: cannot reach the service: {exc}", file=sys.stderr)
        return UNREACHABLE
    raise exc


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.app import create_app
    from service.auth import KeyRing

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = Settings.from_env(os.environ, host=args.host, port=args.port, data_dir=args.data_dir)
    if not KeyRing.load(settings.api_keys, settings.api_keys_file).enabled:
        if not is_loopback(settings.host):
            raise ConfigError(
                f"refusing to listen on {settings.host} without API keys; "
                "set STRATA_API_KEYS or STRATA_API_KEYS_FILE, or bind to 127.0.0.1"
            )
        log.warning("no API keys configured: open access, listening on loopback only")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        timeout_graceful_shutdown=10,
    )
    return OK
