"""The one place the service is wired: the real stores opened (``stores``), the models loaded
(``models``), and the use cases built over any stores that fit the ports (``services``), each
given the ports, or the part of the memory, it uses. ``service.lifespan`` says in what order
they start and stop; ``service.app`` assembles the web application around them."""

from service.bootstrap.models import load_embedder, load_reranker
from service.bootstrap.services import build_services, new_id, replica_name
from service.bootstrap.stores import copy_state, open_stores

__all__ = [
    "build_services",
    "copy_state",
    "load_embedder",
    "load_reranker",
    "new_id",
    "open_stores",
    "replica_name",
]
