"""The one place the service is wired: the real stores opened (``stores``), the models loaded
(``models``), and the use cases built over any stores that fit the ports (``services``), each
given the ports, or the part of the memory, it uses; the ``Runtime`` holds them with the parts
behind them. ``service.lifespan`` says in what order they start and stop; ``service.app``
assembles the web application around the use cases."""

from service.bootstrap.models import load_embedder, load_reranker
from service.bootstrap.runtime import Runtime
from service.bootstrap.services import build_runtime, new_id, replica_name
from service.bootstrap.stores import open_stores
from service.stores.copying import copy_state

__all__ = [
    "Runtime",
    "build_runtime",
    "copy_state",
    "load_embedder",
    "load_reranker",
    "new_id",
    "open_stores",
    "replica_name",
]
