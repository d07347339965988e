"""strata's MCP tools, written once against ``Gateway``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar, cast

import httpx
import msgspec
from litestar.concurrency import sync_to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from schemas import wire
from service import VERSION
from service.domain.errors import EngineUnavailable
from service.errors import StrataError
from service.mcp.arguments import convert, like
from service.mcp.gateways import Gateway, Json
from service.remote.client import StrataClientError

T = TypeVar("T")

INSTRUCTIONS = """strata is a long-term memory. Use `search` or `retrieve` before answering \
questions about past conversations, decisions, preferences or notes (or `context` for one \
cited block of memory within a token budget); `remember` what is worth \
keeping (tier A: lasting facts and preferences; C: working context that expires after a week; \
E: logs and exact strings, keyword-searchable only). Search hits from markdown collections carry \
`file` and `lines`: read more of the file with `get`."""

NAMESPACE = "Namespace to use. Default: the API key's only namespace, else 'default'."
Namespace = Annotated[wire.Namespace | None, like(wire.SearchRequest, "namespace", NAMESPACE)]
Tiers = Annotated[
    list[wire.Tier] | None,
    like(wire.SearchRequest, "tiers", "Tiers to search (A, C, E). Default: all."),
]
NOTHING_RELEVANT = "nothing relevant in memory"
"""What an empty search or retrieve says in its ``note``: memory has no answer to give."""
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def build_server(gateway_of: Callable[[Context], Gateway]) -> MCPServer:
    """strata's tools; ``gateway_of`` gives the gateway acting for a tool call's caller."""
    server: MCPServer = MCPServer(
        "strata", title="strata memory", instructions=INSTRUCTIONS, version=VERSION
    )

    @server.tool(annotations=READ_ONLY)
    async def search(
        ctx: Context,
        query: Annotated[str, like(wire.SearchRequest, "query", "What to look for.")],
        namespace: Namespace = None,
        tiers: Tiers = None,
        mode: Annotated[
            wire.Mode,
            like(
                wire.SearchRequest,
                "mode",
                "auto: hybrid when tier A or C is searched, else bm25. bm25: keywords only. "
                "vector: meaning only, tiers A and C. hybrid: both, fused.",
            ),
        ] = "auto",
        limit: Annotated[int, like(wire.SearchRequest, "limit", "Most hits to return.")] = 10,
        as_of: Annotated[
            str | None,
            like(
                wire.SearchRequest,
                "as_of",
                "An ISO 8601 moment: search memory as it held then (what was decided at "
                "that time). Default: now.",
            ),
        ] = None,
        include_superseded: Annotated[
            bool,
            like(
                wire.SearchRequest,
                "include_superseded",
                "Show entries replaced by newer ones too, marked with `superseded_by`.",
            ),
        ] = False,
        min_score: Annotated[
            float | None,
            like(
                wire.SearchRequest,
                "min_score",
                "Leave out hits scoring below this. Default: the service's relevance floor; "
                "0 shows every hit, however weak.",
            ),
        ] = None,
    ) -> Json:
        """Search memory: BM25 keywords and vector similarity fused into one ranked list.

        Each hit has its id, tier, text, a snippet of the best-matching part and a score in
        [0, 1] (1.0: ranked first by every list searched). Hits from markdown collections
        also carry `file` and `lines`, to read with `get`. Entries replaced by a newer one
        are left out unless `include_superseded`. When memory has nothing, hits may come
        from the upstream memory: they carry `source: "upstream"` and `upstream` (its
        `name`, `namespace` and the `id` to cite); they are not in this memory, so `get`
        cannot read them. With no hits, `note` says memory holds nothing relevant and
        `dropped` how many weak hits the relevance floor left out: say so rather than guess."""
        body: Json = {"query": query, "namespace": namespace, "tiers": tiers, "mode": mode}
        body |= {"as_of": as_of, "include_superseded": include_superseded}
        body |= {"limit": limit, "min_score": min_score}
        found = await _call(gateway_of(ctx).search, convert(body, wire.SearchRequest))
        answer = _json(found)
        if not found.results:
            answer["note"] = nothing_relevant(found.dropped)
        return answer

    @server.tool(annotations=READ_ONLY)
    async def retrieve(
        ctx: Context,
        question: Annotated[str, like(wire.RetrieveRequest, "question", "The question to answer.")],
        namespace: Namespace = None,
        top_n: Annotated[
            int, like(wire.RetrieveRequest, "top_n", "How many entries to return.")
        ] = 5,
        asker: Annotated[
            str | None,
            like(wire.RetrieveRequest, "asker", "Who asks (your agent's name), for the log."),
        ] = None,
    ) -> Json:
        """Answer a question from memory: the best grounded entries (full text, each with
        `relevance_score` and a blended `score`), `answer_confidence` (the probability that
        the answer is among them), `strong_match` (true when a near-direct answer exists: act
        on it; false: say memory has no clear answer), and up to 4
        `reasoning_patterns` (how to think about such questions, with `variants`).
        Entries marked `source: "upstream"` come from the upstream memory (cite
        `upstream.name` and `upstream.id`). Quote `interaction_id` when giving feedback.
        With no entries, `note` says memory holds nothing relevant. `reference_id` is set
        when the team recorded this question's answer (`record_reference`): its verdict."""
        body = {"question": question, "namespace": namespace, "top_n": top_n, "asker": asker}
        found = await _call(gateway_of(ctx).retrieve, convert(body, wire.RetrieveRequest))
        answer = _json(found)
        if not found.entries:
            answer["note"] = NOTHING_RELEVANT
        return answer

    @server.tool(annotations=READ_ONLY)
    async def context(
        ctx: Context,
        question: Annotated[
            str, like(wire.ContextRequest, "question", "The question to gather memory for.")
        ],
        namespace: Namespace = None,
        max_tokens: Annotated[
            int,
            like(
                wire.ContextRequest,
                "max_tokens",
                "Most tokens the block may hold (embedding model's tokenizer).",
            ),
        ] = wire.MAX_TOKENS,
        tiers: Tiers = None,
        tags: Annotated[
            list[str] | None,
            like(wire.ContextRequest, "tags", "Only entries with all of these tags."),
        ] = None,
        asker: Annotated[
            str | None,
            like(wire.ContextRequest, "asker", "Who asks (your agent's name), for the log."),
        ] = None,
    ) -> Json:
        """Memory for a question as one markdown block (`context`) that fits `max_tokens`:
        the entries a retrieve ranks first under their tiers' headings, each cited
        `[id date speaker]`,
        replaced entries left out (the replacement says "replaces ..."), near-repeats
        folded ("also ..."), long entries cut around their best passage, then the
        reasoning patterns that fit. `entries` lists what it holds; `left_out` what did
        not fit. When `nothing_relevant` is true the block says memory holds nothing
        relevant: say so rather than guess. Quote `interaction_id` when giving feedback."""
        body: Json = {"question": question, "namespace": namespace, "max_tokens": max_tokens}
        body |= {"tiers": tiers, "tags": tags or [], "asker": asker}
        found = await _call(gateway_of(ctx).context, convert(body, wire.ContextRequest))
        return _json(found)

    @server.tool(annotations=READ_ONLY)
    async def get(
        ctx: Context,
        id_or_path: Annotated[
            str,
            like(
                wire.DocumentsRequest,
                "pattern",
                "An entry id (as a search hit's `id`), or a collection document's "
                "path `<collection>/<relative path>` (as a search hit's `file`).",
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
        gateway = gateway_of(ctx)
        if "/" in id_or_path:
            return await _run(gateway.document, id_or_path, from_line, lines)
        return await _run(gateway.entry, id_or_path, namespace)

    @server.tool(annotations=READ_ONLY)
    async def multi_get(
        ctx: Context,
        pattern: Annotated[
            str,
            like(
                wire.DocumentsRequest,
                "pattern",
                "A glob over document paths (`notes/**/*.md`) or a comma-separated "
                "list of paths (`notes/a.md, notes/b.md`).",
            ),
        ],
        max_bytes: Annotated[
            int, like(wire.DocumentsRequest, "max_bytes", "Skip files larger than this.")
        ] = 65536,
    ) -> Json:
        """Read several collection documents at once. Files over `max_bytes` are listed under
        `skipped` with the reason instead of being returned."""
        request = convert({"pattern": pattern, "max_bytes": max_bytes}, wire.DocumentsRequest)
        return await _run(gateway_of(ctx).documents, request)

    @server.tool(annotations=WRITES)
    async def remember(
        ctx: Context,
        text: Annotated[str, like(wire.Event, "text", "What to remember.")],
        tier: Annotated[
            wire.Tier,
            like(
                wire.Event,
                "tier",
                "A: a lasting fact or preference (default). C: working context, "
                "expires after a week. E: a log line or exact string, keyword search only.",
            ),
        ] = "A",
        namespace: Namespace = None,
        speaker: Annotated[str | None, like(wire.Event, "speaker", "Who said it.")] = None,
        tags: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
            like(wire.Event, "tags", "Labels to filter by."),
        ] = None,
        chain_type: Annotated[
            str | None, like(wire.Event, "chain_type", "Kind of record, e.g. 'standup'.")
        ] = None,
        type: Annotated[
            str | None,
            like(
                wire.Event,
                "type",
                "What it is: 'decision', 'fact', 'position', ... A decision comes first when "
                "a question asks what was decided.",
            ),
        ] = None,
        supersedes: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
            like(
                wire.Event,
                "supersedes",
                "Ids of entries this one replaces (a revised decision): they are kept but "
                "left out of searches.",
            ),
        ] = None,
    ) -> Json:
        """Store something in memory; returns its id. The same text remembered again is
        stored once: `duplicate_of` names the entry that holds it. For tier A and C,
        `similar` lists close entries already stored: if this replaces one, remember it
        with `supersedes` naming it."""
        event = {
            "text": text,
            "tier": tier,
            "namespace": namespace,
            "speaker": speaker,
            "chain_type": chain_type,
            "type": type,
            "tags": tags or [],
            "supersedes": supersedes or [],
        }
        written = await _call(gateway_of(ctx).write, convert(event, wire.Event))
        answer: Json = {"id": written.ids[0], "tier": tier, "embedded": written.embedded > 0}
        if written.written:
            outcome = msgspec.to_builtins(written.written[0])
            answer |= {k: v for k, v in outcome.items() if k != "id"}
        return answer

    @server.tool(annotations=WRITES)
    async def record_reference(
        ctx: Context,
        question: Annotated[str, like(wire.ReferenceRequest, "question", "The question.")],
        answers: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=128)]] | None,
            like(
                wire.ReferenceRequest,
                "answers",
                "Ids of the entries that answer it (from a search or retrieve).",
            ),
        ] = None,
        nothing: Annotated[
            bool,
            like(wire.ReferenceRequest, "nothing", "True when nothing in memory answers it."),
        ] = False,
        namespace: Namespace = None,
    ) -> Json:
        """Record a question whose answer you know: the entries that answer it, or that
        nothing in memory does. Asked again, the question gets that verdict; the
        namespace's sweep asks such questions to tune when an answer counts as a strong
        match and when memory says it holds nothing."""
        request = {
            "question": question,
            "answers": answers or [],
            "nothing": nothing,
            "namespace": namespace,
        }
        return await _run(gateway_of(ctx).record_reference, convert(request, wire.ReferenceRequest))

    @server.tool(annotations=READ_ONLY)
    async def status(ctx: Context) -> Json:
        """Health of the service (model, stores, degradations) and what is stored: entries,
        vectors and tokens per namespace and tier."""
        return await _run(gateway_of(ctx).status)

    return server


def nothing_relevant(dropped: int) -> str:
    """The ``note`` of a search without hits, ``dropped`` of them below the floor."""
    if not dropped:
        return NOTHING_RELEVANT
    below = f"{dropped} {'hit' if dropped == 1 else 'hits'} below the relevance floor"
    return f"{NOTHING_RELEVANT} ({below}; min_score 0 shows them)"


async def _run(call: Callable[..., msgspec.Struct], *args: Any) -> Json:
    """A gateway call's answer as JSON."""
    return _json(await _call(call, *args))


def _json(answer: msgspec.Struct) -> Json:
    return cast(Json, msgspec.to_builtins(answer))


async def _call(call: Callable[..., T], *args: Any) -> T:
    """Run a blocking gateway call on a worker thread; strata's errors become tool errors
    the model can read."""
    try:
        return await sync_to_thread(call, *args)
    except StrataError as exc:
        raise ToolError(f"{exc.status} {exc.title}: {exc.detail}") from exc
    except EngineUnavailable as exc:
        raise ToolError(f"503 Service unavailable: {exc}; retry in a few seconds") from exc
    except StrataClientError as exc:
        raise ToolError(str(exc)) from exc
    except httpx.TransportError as exc:
        raise ToolError(f"cannot reach the strata service: {exc}") from exc
