"""What the bootstrap opens and the lifespan drives: the front ends' ``Services``, and the
parts behind them that no front end is given."""

from __future__ import annotations

from dataclasses import dataclass

from service.application import Services, Stores
from service.application.rebuild import Rebuilder
from service.domain.cluster.replication import Follower
from service.domain.memory import IndexRepair, Memory
from service.domain.recall import UpstreamRecall
from service.domain.search.searcher import Searcher
from service.jobs.scheduler import Scheduler


@dataclass
class Runtime:
    services: Services
    stores: Stores
    memory: Memory
    """Every part of the memory, for the tests and the benchmarks; each use case is given
    the part it uses."""
    repair: IndexRepair
    """Brings the indexes in step with the ledger at start-up."""
    searcher: Searcher
    """Given the reranker once it has loaded, off the start-up path."""
    scheduler: Scheduler
    rebuilder: Rebuilder
    follower: Follower | None
    """Applies what other replicas change to this one's keyword index (in a cluster)."""
    upstream: UpstreamRecall | None = None
    """The recall from the upstream, whose ``snapshot`` gives its breaker and counts."""

    def close(self) -> None:
        if self.follower is not None:
            self.follower.stop()
        self.scheduler.shutdown()
        self.rebuilder.wait()
        self.stores.close()
