"""Where the service listens, who may call it, and how much one request may carry."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from service.errors import ConfigError
from service.net.addresses import is_loopback, origin
from service.net.proxies import TrustedProxies
from service.settings.base import Count, Group

UI_SECRET_CHARS = 32
"""Fewest characters of STRATA_UI_SECRET."""


class ServerSettings(Group, frozen=True):
    host: str = "127.0.0.1"
    """Interface to bind. Without API keys only loopback addresses are allowed."""
    port: Annotated[int, Meta(ge=0, le=65535)] = 8080
    """TCP port to listen on."""
    api_keys: str = ""
    """API keys as ``key=role[:ns1,ns2];...`` with role ``agent`` or ``admin``."""
    api_keys_file: str = ""
    """JSON file of API keys: ``[{"key": ..., "role": ..., "namespaces": [...]}]``."""
    max_batch: Count = 1000
    """Most events accepted by one ``POST /v1/events``; more get 413."""
    max_body_bytes: Count = 16 * 1024 * 1024
    """Largest request body accepted; more get 413."""
    max_import_bytes: Count = 4 * 1024**3
    """Largest export file ``POST /v1/namespaces/{namespace}/import`` accepts (it is kept
    in a temporary file while it is read); more get 413."""
    max_hit_chars: Count = 10_000
    """Most characters of an entry's text a search hit or retrieved entry carries (it says
    ``truncated``); ``GET /v1/entries/{id}`` gives the whole text."""
    max_documents: Count = 100
    """Most documents one ``POST /v1/documents/batch`` returns; the rest are listed as
    skipped."""
    max_documents_bytes: Count = 10 * 1024 * 1024
    """Most bytes of files one ``POST /v1/documents/batch`` returns in all; the rest are
    listed as skipped."""
    search_threads: Count = 4
    """Reads served at once (searches, retrieves, gets): their model, Chroma and Tantivy
    calls run on this many threads."""
    write_threads: Count = 2
    """Writes served at once (ingest, deletes, promotions, scans, jobs run by hand), on
    threads of their own, so slow writes never hold up searches or ``/health``."""
    allowed_origins: str = ""
    """Web origins, comma-separated (``http://localhost:5173``), whose pages may call the
    service besides loopback ones; see Security."""
    trusted_proxies: str = ""
    """Addresses and networks of the reverse proxies or load balancers in front of the
    service, comma-separated (``10.0.0.0/8,192.0.2.7``): only a request from one of them
    may name the client it forwards for in ``X-Forwarded-For`` (and its scheme in
    ``X-Forwarded-Proto``); the limits and the failed-key counts then hold that client.
    Empty: none, and every request's client is its connection's peer, whatever its headers
    say. See Security."""
    ui_secret: str = ""
    """Key that signs the console's session cookies (at least 32 characters); empty: a
    random one kept in ``ui-secret`` in the data directory. Replicas behind one load
    balancer must share it."""

    @property
    def has_keys(self) -> bool:
        """Whether API keys are configured; without them every caller is an admin."""
        return bool(self.api_keys.strip(" ;") or self.api_keys_file)

    @property
    def origins(self) -> frozenset[str]:
        """``allowed_origins`` as browsers write them in ``Origin``."""
        return frozenset(filter(None, map(origin, self.allowed_origins.split(","))))

    @property
    def proxies(self) -> TrustedProxies:
        """``trusted_proxies`` as networks."""
        return TrustedProxies.parse(self.trusted_proxies)

    def __post_init__(self) -> None:
        try:
            TrustedProxies.parse(self.trusted_proxies)
        except ValueError as exc:
            raise ConfigError(f"STRATA_TRUSTED_PROXIES: {exc}") from None
        for given in filter(None, (o.strip() for o in self.allowed_origins.split(","))):
            if origin(given) is None:
                raise ConfigError(
                    f"STRATA_ALLOWED_ORIGINS: {given!r} is not an origin like "
                    "http://localhost:5173 (scheme, host and port, no path)"
                )
        if self.ui_secret and len(self.ui_secret) < UI_SECRET_CHARS:
            raise ConfigError(
                f"STRATA_UI_SECRET: at least {UI_SECRET_CHARS} characters, "
                f"got {len(self.ui_secret)}"
            )
        if not self.has_keys and not is_loopback(self.host):
            raise ConfigError(
                f"refusing to listen on {self.host} without API keys; "
                "set STRATA_API_KEYS or STRATA_API_KEYS_FILE, or bind to 127.0.0.1"
            )
