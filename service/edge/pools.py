"""Bounded thread pools for the blocking work of requests: reads (searches, retrieves,
gets: the handlers Litestar runs in a thread), writes (ingest, deletes, scans, jobs run by
hand, promotions), ``/health`` and an admin's long work aside (sweeps) each have their own,
so slow writes never starve searches or the health check."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar, cast

from anyio import CapacityLimiter, to_thread
from litestar.concurrency import set_asyncio_executor

from service.lib.fair import FairExecutor, Recent
from service.settings import Settings

T = TypeVar("T")

STATUS_THREADS = 2
"""Threads that answer ``/health`` whatever else runs."""


_reads: FairExecutor | None = None
_askers = Recent()
"""Who asked of late, one account for the read and the write pools: a caller writing while
another reads shares the machine with it (``service/lib/fair.py``, ``shared``)."""


def reads_pool(settings: Settings) -> None:
    """Reads run on ``search_threads`` threads, in turns between callers
    (``service/lib/fair.py``): the executor of Litestar's thread handlers and of the MCP
    tools. Set before the app's event loop runs."""
    global _reads
    if _reads is not None:  # an app made before in this process (tests make many)
        _reads.shutdown(wait=False)
    _reads = FairExecutor(settings.server.search_threads, name="strata-read", recent=_askers)
    set_asyncio_executor(cast(ThreadPoolExecutor, _reads))


class Pools:
    """Made in the app's lifespan, within its event loop. Calls through anyio's own default
    pool are bounded by ``search_threads`` as well."""

    def __init__(self, settings: Settings) -> None:
        to_thread.current_default_thread_limiter().total_tokens = settings.server.search_threads
        threads = settings.server.write_threads
        self.writes = FairExecutor(threads, name="strata-write", recent=_askers)
        self.status = CapacityLimiter(STATUS_THREADS)
        self.asides = ThreadPoolExecutor(1, thread_name_prefix="strata-aside")

    async def write(self, call: Callable[..., T], *args: Any) -> T:
        """Run a blocking write on the write pool, in turns with other callers' writes."""
        bound = partial(contextvars.copy_context().run, call, *args)
        return await asyncio.get_running_loop().run_in_executor(self.writes, bound)

    async def aside(self, call: Callable[..., T], *args: Any) -> T:
        """Run long work an admin asked for (a sweep) on a thread of its own, one call at
        a time, so that no read or write waits for it."""
        bound = partial(contextvars.copy_context().run, call, *args)
        return await asyncio.get_running_loop().run_in_executor(self.asides, bound)

    def close(self) -> None:
        """Let the write threads end once their calls are done."""
        self.writes.shutdown(wait=False)
        self.asides.shutdown(wait=False)

    async def check(self, call: Callable[..., T], *args: Any) -> T:
        """Run a health check on its own pool."""
        return await to_thread.run_sync(partial(call, *args), limiter=self.status)
