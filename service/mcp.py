"""The MCP interface: strata's tools for agents, over stdio or streamable HTTP.

The tools are written once against ``Backend``, the few operations they need, bound to
one caller. ``strata mcp`` serves them over stdio with ``RestBackend``, a client of a
running service. The service itself serves them at ``/mcp`` with ``LocalBackend``,
which calls the domain as the REST controllers do, for the caller whose API key
came with the request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any, Literal, Protocol, TypeVar, cast

import anyio.to_thread
import httpx
import msgspec
from litestar import Litestar
from litestar.datastructures import Headers
from litestar.handlers import asgi
from litestar.types import Receive, Scope, Send
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import Field

from schemas import wire
from service.api import answers as answers_api
from service.api import collections as documents_api
from service.api import search as search_api
from service.api.convert import entry_out, to_entries
from service.api.health import health
from service.api.stats import stats
from service.auth import Principal
from service.client import StrataClient, StrataClientError
from service.domain.models import entry_key
from service.errors import NotFound, StrataError
from service.resources import Resources

T = TypeVar("T")
Json = dict[str, Any]
PRINCIPAL = "strata.principal"
"""Scope key under which the ``/mcp`` endpoint hands the authenticated caller to the tools."""

INSTRUCTIONS = """strata is a long-term memory. Use `search` or `retrieve` before answering \
questions about past conversations, decisions, preferences or notes; `remember` what is worth \
keeping (tier A: lasting facts and preferences; C: working context that expires after a week; \
E: logs and exact strings, keyword-searchable only). Search hits from markdown collections carry \
`file` and `lines`: read more of the file with `get`."""


class Backend(Protocol):
    """What the tools need from strata, acting for one caller. Results are JSON-ready."""

    def search(self, request: wire.SearchRequest) -> Json: ...
    def retrieve(self, request: wire.RetrieveRequest) -> Json: ...
    def entry(self, entry_id: str, namespace: str | None) -> Json: ...
    def document(self, path: str, from_line: int, lines: int | None) -> Json: ...
    def documents(self, request: wire.DocumentsRequest) -> Json: ...
    def write(self, event: wire.Event) -> Json: ...
    def status(self) -> Json: ...


class RestBackend:
    """A running strata service, over its REST API."""

    def __init__(self, client: StrataClient) -> None:
        self.client = client

    def search(self, request: wire.SearchRequest) -> Json:
        options = msgspec.to_builtins(request)
        return _plain(self.client.search(options.pop("query"), **options))

    def retrieve(self, request: wire.RetrieveRequest) -> Json:
        options = msgspec.to_builtins(request)
        return _plain(self.client.retrieve(options.pop("question"), **options))

    def entry(self, entry_id: str, namespace: str | None) -> Json:
        return _plain(self.client.get_entry(entry_id, namespace))

    def document(self, path: str, from_line: int, lines: int | None) -> Json:
        return _plain(self.client.get_document(path, from_line, lines))

    def documents(self, request: wire.DocumentsRequest) -> Json:
        return _plain(self.client.get_documents(request.pattern, request.max_bytes))

    def write(self, event: wire.Event) -> Json:
        return _plain(self.client.add_events([msgspec.to_builtins(event)]))

    def status(self) -> Json:
        return {"health": _plain(self.client.health()), "stats": _plain(self.client.stats())}


class LocalBackend:
    """The domain in this process, for one caller, along the REST controllers' code paths."""

    def __init__(self, resources: Resources, principal: Principal) -> None:
        self.resources = resources
        self.principal = principal

    def search(self, request: wire.SearchRequest) -> Json:
        return _plain(search_api.search(self.resources, self.principal, request))

    def retrieve(self, request: wire.RetrieveRequest) -> Json:
        return _plain(answers_api.retrieve(self.resources, self.principal, request))

    def entry(self, entry_id: str, namespace: str | None) -> Json:
        ns = self.principal.namespace(namespace)
        found = self.resources.memory.get(entry_key(ns, entry_id))
        if found is None:
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return _plain(entry_out(found.entry, self.resources.clock()))

    def document(self, path: str, from_line: int, lines: int | None) -> Json:
        found = documents_api.read_document(self.resources, self.principal, path, from_line, lines)
        return _plain(found)

    def documents(self, request: wire.DocumentsRequest) -> Json:
        return _plain(documents_api.read_documents(self.resources, self.principal, request))

    def write(self, event: wire.Event) -> Json:
        entries = to_entries(
            [event],
            now=self.resources.clock(),
            new_id=self.resources.new_id,
            policy=self.resources.policy,
            namespace=self.principal.namespace,
        )
        outcome = self.resources.memory.write(entries, self.principal.name)
        return _plain(wire.EventsResponse(outcome.ids, outcome.embedded, outcome.indexed))

    def status(self) -> Json:
        # The /health and /v1/stats handlers themselves; neither touches the request.
        report_health = cast(Callable[..., wire.Health], health.fn)
        report_stats = cast(Callable[..., wire.StatsResponse], stats.fn)
        return {
            "health": _plain(report_health(resources=self.resources)),
            "stats": _plain(report_stats(resources=self.resources, principal=self.principal)),
        }


def _plain(value: msgspec.Struct) -> Json:
    return cast(Json, msgspec.to_builtins(value))


# -- the tools

Tier = Literal["A", "C", "E"]
Namespace = Annotated[
    str | None,
    Field(
        description="Namespace to use. Default: the API key's only namespace, else 'default'.",
        pattern=r"^[A-Za-z0-9_.-]{1,64}$",
    ),
]
Label = Annotated[str, Field(min_length=1, max_length=200)]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def build_server(backend_of: Callable[[Context], Backend]) -> MCPServer:
    """strata's tools; ``backend_of`` gives the backend acting for a tool call's caller."""
    server: MCPServer = MCPServer(
        "strata", title="strata memory", instructions=INSTRUCTIONS, version="0.1.0"
    )

    @server.tool(annotations=READ_ONLY)
    async def search(
        ctx: Context,
        query: Annotated[str, Field(description="What to look for.", min_length=1)],
        namespace: Namespace = None,
        tiers: Annotated[
            list[Tier] | None,
            Field(description="Tiers to search (A, C, E). Default: all.", min_length=1),
        ] = None,
        mode: Annotated[
            Literal["auto", "bm25", "vector", "hybrid"],
            Field(
                description="auto: hybrid when tier A or C is searched, else bm25. bm25: "
                "keywords only. vector: meaning only, tiers A and C. hybrid: both, fused."
            ),
        ] = "auto",
        limit: Annotated[int, Field(description="Most hits to return.", ge=1, le=100)] = 10,
    ) -> Json:
        """Search memory: BM25 keywords and vector similarity fused into one ranked list.

        Each hit has its id, tier, text, a snippet of the best-matching part and a score in
        [0, 1] (1.0: ranked first by every list searched). Hits from markdown collections
        also carry `file` and `lines`, to read with `get`."""
        body = {"query": query, "namespace": namespace, "tiers": tiers, "mode": mode}
        request = _convert({**body, "limit": limit}, wire.SearchRequest)
        return await _run(backend_of(ctx).search, request)

    @server.tool(annotations=READ_ONLY)
    async def retrieve(
        ctx: Context,
        question: Annotated[str, Field(description="The question to answer.", min_length=1)],
        namespace: Namespace = None,
        top_n: Annotated[int, Field(description="How many entries to return.", ge=1, le=50)] = 5,
        asker: Annotated[
            Label | None, Field(description="Who asks (your agent's name), for the log.")
        ] = None,
    ) -> Json:
        """Answer a question from memory: the best grounded entries (full text, each with
        `relevance_score` and a blended `score`), `strong_match` (true when a near-direct
        answer exists: act on it; false: say memory has no clear answer), and up to 4
        `reasoning_patterns` (how to think about such questions, with `variants`).
        Quote `interaction_id` when giving feedback."""
        body = {"question": question, "namespace": namespace, "top_n": top_n, "asker": asker}
        return await _run(backend_of(ctx).retrieve, _convert(body, wire.RetrieveRequest))

    @server.tool(annotations=READ_ONLY)
    async def get(
        ctx: Context,
        id_or_path: Annotated[
            str,
            Field(
                description="An entry id (as a search hit's `id`), or a collection document's "
                "path `<collection>/<relative path>` (as a search hit's `file`).",
                min_length=1,
            ),
        ],
        namespace: Namespace = None,
        from_line: Annotated[
            int, Field(description="Documents only: first line to return.", ge=1)
        ] = 1,
        lines: Annotated[
            int | None,
            Field(description="Documents only: how many lines. Default: to the end.", ge=1),
        ] = None,
    ) -> Json:
        """Read one entry by id, or lines of a collection document by path.

        A path contains '/'; entry ids never do. Document lines come numbered."""
        backend = backend_of(ctx)
        if "/" in id_or_path:
            return await _run(backend.document, id_or_path, from_line, lines)
        return await _run(backend.entry, id_or_path, namespace)

    @server.tool(annotations=READ_ONLY)
    async def multi_get(
        ctx: Context,
        pattern: Annotated[
            str,
            Field(
                description="A glob over document paths (`notes/**/*.md`) or a comma-separated "
                "list of paths (`notes/a.md, notes/b.md`).",
                min_length=1,
            ),
        ],
        max_bytes: Annotated[
            int, Field(description="Skip files larger than this.", ge=1, le=10_000_000)
        ] = 65536,
    ) -> Json:
        """Read several collection documents at once. Files over `max_bytes` are listed under
        `skipped` with the reason instead of being returned."""
        request = _convert({"pattern": pattern, "max_bytes": max_bytes}, wire.DocumentsRequest)
        return await _run(backend_of(ctx).documents, request)

    @server.tool(annotations=WRITES)
    async def remember(
        ctx: Context,
        text: Annotated[str, Field(description="What to remember.", min_length=1)],
        tier: Annotated[
            Tier,
            Field(
                description="A: a lasting fact or preference (default). C: working context, "
                "expires after a week. E: a log line or exact string, keyword search only."
            ),
        ] = "A",
        namespace: Namespace = None,
        speaker: Annotated[Label | None, Field(description="Who said it.")] = None,
        tags: Annotated[list[Label] | None, Field(description="Labels to filter by.")] = None,
        chain_type: Annotated[
            Label | None, Field(description="Kind of record, e.g. 'standup'.")
        ] = None,
    ) -> Json:
        """Store something in memory; returns its id."""
        event = {
            "text": text,
            "tier": tier,
            "namespace": namespace,
            "speaker": speaker,
            "chain_type": chain_type,
            "tags": tags or [],
        }
        written = await _run(backend_of(ctx).write, _convert(event, wire.Event))
        return {"id": written["ids"][0], "tier": tier, "embedded": written["embedded"] > 0}

    @server.tool(annotations=READ_ONLY)
    async def status(ctx: Context) -> Json:
        """Health of the service (model, stores, degradations) and what is stored: entries,
        vectors and tokens per namespace and tier."""
        return await _run(backend_of(ctx).status)

    return server


def _convert(fields: Json, kind: type[T]) -> T:
    """A wire request from tool arguments, checked against the REST contract."""
    try:
        return msgspec.convert({k: v for k, v in fields.items() if v is not None}, kind)
    except msgspec.ValidationError as exc:
        raise ToolError(f"Invalid input: {exc}") from exc


async def _run(call: Callable[..., T], *args: Any) -> T:
    """Run a blocking backend call on a worker thread; strata's errors become tool errors
    the model can read."""
    try:
        return await anyio.to_thread.run_sync(partial(call, *args))
    except StrataError as exc:
        raise ToolError(f"{exc.status} {exc.title}: {exc.detail}") from exc
    except StrataClientError as exc:
        raise ToolError(str(exc)) from exc
    except httpx.TransportError as exc:
        raise ToolError(f"cannot reach the strata service: {exc}") from exc


# -- transports


def serve_stdio(client: StrataClient) -> None:
    """Serve the tools over stdin/stdout, backed by the service ``client`` talks to."""
    backend = RestBackend(client)
    build_server(lambda _: backend).run("stdio")


LOOPBACK = {
    "allowed_hosts": ["127.0.0.1:*", "localhost:*", "[::1]:*"],
    "allowed_origins": ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
}
"""Hosts and origins /mcp accepts without API keys. The service is then open, on loopback
only; checking Host and Origin keeps web pages out that reach it through a name resolving to
127.0.0.1 (DNS rebinding). With keys, the key is the check."""


def _local_backend(ctx: Context) -> Backend:
    request = ctx.request_context.request  # the HTTP request that carried this tool call
    if request is None or not isinstance(request.scope.get(PRINCIPAL), Principal):
        raise ToolError("no authenticated caller for this request")
    return LocalBackend(request.app.state.resources, request.scope[PRINCIPAL])


@asynccontextmanager
async def mcp_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the ``/mcp`` session manager for the app's lifetime (after its resources open)."""
    resources: Resources = app.state.resources
    server = build_server(_local_backend)
    # Stateless, plain JSON answers: each tool call is one request, authenticated on its own,
    # so no session needs keeping (and any worker can answer it).
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=resources.settings.max_body_bytes,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=not resources.keys.enabled, **LOOPBACK
        ),
    )
    manager: StreamableHTTPSessionManager = server.session_manager
    app.state.mcp = manager
    async with manager.run():
        yield


@asgi("/mcp", is_mount=True, copy_scope=False)
async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    """MCP over streamable HTTP, with the REST API's keys (401 without a valid one)."""
    app = scope["app"]
    resources: Resources = app.state.resources
    principal = resources.keys.authenticate(Headers.from_scope(scope).get("authorization"))
    manager: StreamableHTTPSessionManager = app.state.mcp
    await manager.handle_request({**scope, PRINCIPAL: principal}, receive, send)  # type: ignore[arg-type]
