"""The ``strata`` commands that talk to a running service through ``StrataClient``."""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from schemas import wire
from service.cli import render
from service.cli.exits import OK, REFUSED
from service.lib.fields import fields_of
from service.remote.client import StrataClient, StrataClientError

T = TypeVar("T")


def connect(args: argparse.Namespace) -> StrataClient:
    """A client of the service named by ``--url`` and ``--api-key`` (or their defaults)."""
    return StrataClient(args.url, api_key=args.api_key)


def add(args: argparse.Namespace) -> int:
    event = {
        "text": args.text,
        "tier": args.tier,
        "id": args.id,
        "namespace": args.namespace,
        "speaker": args.speaker,
        "chain_type": args.chain_type,
        "type": args.type,
        "tags": args.tags,
        "supersedes": args.supersedes,
    }
    with connect(args) as client:
        written = client.add_events([{k: v for k, v in event.items() if v is not None}])
    print(written.ids[0])
    _err(render.written_text(written))
    return OK


def search(args: argparse.Namespace) -> int:
    with connect(args) as client:
        found = client.search(
            args.query,
            **fields_of(args, "mode", "tiers", "limit", "namespace", "as_of", "min_score"),
            include_archived=args.include_archived or None,
            include_superseded=args.include_superseded or None,
        )
        held = _held_namespaces(client) if args.namespace and not found.results else None
    _out(render.SEARCH_FORMATS[args.format](found))
    if args.format == "text":
        _err(render.degraded_text(found.degraded))
    if held is not None and args.namespace not in held:
        _err(render.empty_namespace(args.namespace, held))
    return OK


def _held_namespaces(client: StrataClient) -> list[str] | None:
    """The namespaces holding entries that the caller may read, by name; None when the
    service does not say."""
    try:
        stats = client.stats().namespaces
    except StrataClientError:
        return None
    return sorted(
        n.namespace for n in stats if any(t.active or t.archived for t in n.tiers.values())
    )


def context(args: argparse.Namespace) -> int:
    """The block on stdout; its interaction, size and what did not fit on stderr."""
    with connect(args) as client:
        made = client.context(
            args.question,
            **fields_of(args, "max_tokens", "tiers", "tags", "namespace", "asker", "as_of"),
            min_score=args.min_score,
            format="text" if args.format == "text" else None,
        )
    if args.format == "json":
        _out(render.as_json(made))
        return OK
    if made.context:
        _out(made.context + "\n")
    else:
        _err(render.nothing_fits(made))
    _err(render.context_footer(made))
    _err(render.degraded_text(made.degraded))
    return OK


def retrieve(args: argparse.Namespace) -> int:
    with connect(args) as client:
        found = client.retrieve(
            args.question,
            **fields_of(args, "top_n", "asker", "namespace", "as_of"),
            include_superseded=args.include_superseded or None,
        )
    if args.json:
        _out(render.as_json(found))
        return OK
    _out(render.retrieve_text(found))
    _err(render.degraded_text(found.degraded))
    return OK


def get(args: argparse.Namespace) -> int:
    """An entry (or its history) as JSON, or lines of a document given by path."""
    with connect(args) as client:
        if "/" in args.id:
            path, _, line = args.id.rpartition(":") if _has_line(args.id) else (args.id, "", "")
            doc = client.get_document(path, int(line) if line else 1, args.lines)
            print(doc.text)
        elif args.history:
            _out(render.as_json(client.history(args.id, args.namespace)))
        else:
            _out(render.as_json(client.get_entry(args.id, args.namespace)))
    return OK


def _has_line(path: str) -> bool:
    """Whether ``path`` ends with ``:LINE``."""
    head, sep, tail = path.rpartition(":")
    return bool(sep) and tail.isdigit() and not head.endswith("strata")


def multi_get(args: argparse.Namespace) -> int:
    with connect(args) as client:
        found = client.get_documents(args.pattern, args.max_bytes)
    _out(render.documents_text(found))
    _err(render.skipped_text(found))
    return OK


def collection_add(args: argparse.Namespace) -> int:
    with connect(args) as client:
        print(f"indexing {args.path}", file=sys.stderr)
        scanned = _with_scan_progress(
            args,
            lambda: client.add_collection(
                args.name, args.path, mask=args.mask, namespace=args.namespace, tier=args.tier
            ),
        )
    _out(render.as_json(scanned))
    _err(render.skipped_text(scanned))
    return OK


def collection_list(args: argparse.Namespace) -> int:
    with connect(args) as client:
        _out(render.collections_text(client.collections()))
    return OK


def collection_update(args: argparse.Namespace) -> int:
    with connect(args) as client:
        scanned = _with_scan_progress(args, lambda: client.update_collection(args.name))
    _out(render.as_json(scanned))
    _err(render.skipped_text(scanned))
    return OK


def collection_remove(args: argparse.Namespace) -> int:
    with connect(args) as client:
        _out(render.as_json(client.remove_collection(args.name)))
    return OK


def _with_scan_progress(args: argparse.Namespace, scan: Callable[[], T]) -> T:
    """Run ``scan`` (a request that indexes collection ``args.name``) while a second
    connection polls the collection's progress into a bar on stderr."""
    outcome: list[T] = []
    failure: list[Exception] = []

    def run() -> None:
        try:
            outcome.append(scan())
        except Exception as exc:  # re-raised below, in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    shown = False
    with connect(args) as watcher:
        while worker.is_alive():
            worker.join(0.5)
            try:
                progress = watcher.collection(args.name).scanning
            except Exception:  # not registered yet, or gone: nothing to show
                progress = None
            if progress and worker.is_alive():
                render.show_progress(progress.done, progress.total, "indexing")
                shown = True
    if shown:
        print(file=sys.stderr)
    if failure:
        raise failure[0]
    return outcome[0]


def status(args: argparse.Namespace) -> int:
    with connect(args) as client:
        _out(render.as_json({"health": client.health(), "stats": client.stats()}))
    return OK


def mcp(args: argparse.Namespace) -> int:
    from service.mcp.stdio import serve_stdio

    # stdout carries the protocol: logs go to stderr, before the MCP SDK configures its own.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    with connect(args) as client:
        serve_stdio(client)
    return OK


def promote(args: argparse.Namespace) -> int:
    with connect(args) as client:
        _out(render.as_json(client.promote(args.ids, args.namespace)))
    return OK


def jobs(args: argparse.Namespace) -> int:
    with connect(args) as client:
        found: wire.JobOut | wire.JobsResponse = (
            client.run_job(args.job) if args.job else client.jobs()
        )
        _out(render.as_json(found))
    return OK


def reference(args: argparse.Namespace) -> int:
    """The reference's id on stdout."""
    with connect(args) as client:
        kept = client.record_reference(
            args.question, args.answers or (), nothing=args.nothing, namespace=args.namespace
        )
    print(kept.id)
    return OK


def sweep(args: argparse.Namespace) -> int:
    with connect(args) as client:
        swept = client.sweep(args.namespace, deployment=args.deployment)
    _out(render.as_json(swept) if args.format == "json" else render.sweep_text(swept))
    return OK


def calibration(args: argparse.Namespace) -> int:
    with connect(args) as client:
        if args.rollback is not None:
            client.roll_back(args.rollback, args.namespace, deployment=args.deployment)
        found = client.calibrations(args.namespace, deployment=args.deployment)
    _out(render.calibrations_text(found))
    return OK


def rebuild(args: argparse.Namespace) -> int:
    """Start a rebuild and follow it with a progress bar until it ends."""
    with connect(args) as client:
        state = client.rebuild()
        while state.state == "running":
            render.show_progress(state.done, state.total)
            time.sleep(0.5)
            state = client.rebuild_status()
        render.show_progress(state.done, state.total)
        print(file=sys.stderr)
        _out(render.as_json(state))
    return OK if state.state == "done" else REFUSED


def _out(text: str) -> None:
    sys.stdout.write(text)


def _err(text: str) -> None:
    sys.stderr.write(text)
