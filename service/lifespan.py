"""The service's life: open the stores, recover (or, in a cluster, bring the replica's
index up to the shared ledger), start the jobs and the follower of the change log, load the
reranker, and close everything in reverse order at shutdown."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from service.bootstrap import Runtime, build_runtime, load_reranker, open_stores
from service.bootstrap import new_id as fresh_id
from service.domain.cluster.replication import Follower
from service.domain.memory import IndexRepair
from service.domain.ports import Embedder
from service.domain.search.searcher import Searcher
from service.lib import interpreter
from service.settings import Settings

log = logging.getLogger("strata")


def open_runtime(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    clock: Callable[[], float] = time.time,
    new_id: Callable[[], str] = fresh_id,
) -> Runtime:
    """The use cases over the stores of ``settings``, with interrupted writes finished and
    the indexes made to match the ledger (in a cluster: this replica's keyword index). The
    caller closes them."""
    stores = open_stores(settings, embedder=embedder, clock=clock)
    runtime = build_runtime(settings, stores, clock=clock, new_id=new_id)
    if runtime.follower is None:
        catch_up(runtime.repair, stores.degraded)
    else:
        follow(runtime.follower, stores.degraded)
    return runtime


def catch_up(repair: IndexRepair, degraded: list[str]) -> None:
    """Finish what a crash interrupted and make the indexes match the ledger. A failure
    here never stops the service from starting: it is logged and reported in ``/health``,
    and the ``recover_pending`` job tries again."""
    try:
        repair.recover()
        if not repair.indexes_match_ledger():
            log.warning("indexes do not match the ledger; rebuilding them from it")
            repair.rebuild()
        repair.backfill()
    except Exception as exc:  # start anyway: the ledger holds every acknowledged write
        log.exception("catching up with the ledger failed")
        degraded.append(f"indexes behind the ledger ({type(exc).__name__}: {exc})")


def follow(follower: Follower, degraded: list[str]) -> None:
    """A replica of a cluster at start: its keyword index brought up to the shared ledger
    (rebuilt from it when the change log cannot). Writes another replica is making look
    interrupted from here, so finishing interrupted writes, like embedding what was stored
    without a model, is left to the jobs the leading replica runs (``recover_pending``,
    ``backfill_embeddings``); the shared Chroma is rebuilt only when an admin asks."""
    try:
        follower.start_up()
    except Exception as exc:  # start anyway: polling the change log tries again
        log.exception("bringing the keyword index up to the ledger failed")
        degraded.append(f"keyword index behind the ledger ({type(exc).__name__}: {exc})")


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Runtime]:
    """The runtime of a server process: the scheduler started, the reranker loaded off the
    start-up path; all closed on exit."""
    runtime = open_runtime(settings)
    for reason in runtime.stores.degraded:
        log.warning("degraded: %s", reason)
    if settings.lifecycle.jobs == "on":
        runtime.scheduler.start()
    if runtime.follower is not None:
        runtime.follower.start(settings.cluster.replica_poll_ms / 1000)
    loader = threading.Thread(
        target=_load_models, args=(settings, runtime.searcher), name="reranker", daemon=True
    )
    loader.start()
    try:
        yield runtime
    finally:
        loader.join()
        runtime.close()
        interpreter.unsettle()


def _load_models(settings: Settings, searcher: Searcher) -> None:
    """The reranker loaded, then what the process holds for its life kept out of the
    collections of cycles (``service/lib/interpreter.py``)."""
    load_reranker(settings, searcher)
    interpreter.settle()
