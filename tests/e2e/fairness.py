"""The fairness walk's table: for every operation of the service (the OpenAPI document, the
console's routes, ``/mcp`` and its tools), the costliest valid requests one agent key can
send. Bounds come from the wire contract and the default settings, so a wider bound widens
the walk. Texts are fresh random words (no word's token count is remembered yet); globs the
longest runs of ``?``, ``*?`` and ``[!...]`` over 80-character CJK names; questions 10,000
characters of the words the attacker's largest entries are made of (every term has postings),
from a random place (no answer is cached).

A request is written as a template: a path and a JSON body in which a string ``{name}`` is
made anew for each request by ``GENERATORS`` (in a path, its value is put in quoted).
Operations an agent key may not call are sent all the same (``refused``): they must answer
403, 404 or 405."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import msgspec
import msgspec.inspect as mi
from msgspec.structs import replace

from schemas import wire
from schemas.vocabulary import GLOB_CHARS, LABEL_CHARS, MAX_TAGS, TEXT_CHARS
from service.application.events import TIER_E_CHARS_PER_CHUNK
from service.settings import Settings

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
DEFAULTS = Settings()
"""The settings the walk's server runs with: the walk asks for as much as they allow."""
MCP_TRANSPORT = frozenset({"GET /mcp", "DELETE /mcp"})
"""``/mcp`` serves POST (its tools) only; its other methods answer 405."""
HIDDEN_METHODS = frozenset({"OPTIONS", "HEAD"})
"""Methods the framework answers for every route by itself."""


def most(struct: type[msgspec.Struct], name: str) -> int:
    """The upper bound a wire type puts on a field: its ``max_length`` or ``le``."""
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    found: Any = next(f.type for f in info.fields if f.name == name)
    if isinstance(found, mi.UnionType):
        found = next(t for t in found.types if not isinstance(t, mi.NoneType))
    if isinstance(found, mi.Metadata):
        found = found.type
    bound = getattr(found, "max_length", None) or getattr(found, "le", None)
    assert bound is not None, f"{struct.__name__}.{name} has no upper bound"
    return int(bound)


QUESTION = most(wire.SearchRequest, "query")
TOKENS = most(wire.ContextRequest, "max_tokens")
MAX_CHUNKS = DEFAULTS.chunking.max_chunks
PER_WRITE = DEFAULTS.limits.chunks_per_write("agent")
"""Chunks one write of an agent may embed: the most a valid write of the walk costs."""
STRIDE = DEFAULTS.chunking.words - DEFAULTS.chunking.overlap
LARGEST_WORDS = DEFAULTS.chunking.words + (MAX_CHUNKS - 1) * STRIDE
"""Words of a text that makes the most chunks an entry may have."""
WRITTEN_WORDS = DEFAULTS.chunking.words + (PER_WRITE - 1) * STRIDE
"""Words of a text that makes the most chunks one write of an agent may embed."""
E_WRITE_CHARS = PER_WRITE * TIER_E_CHARS_PER_CHUNK
"""Characters of tier E text one write of an agent may hold."""
BATCH = DEFAULTS.server.max_batch
E_EVENTS = DEFAULTS.server.max_body_bytes // (TEXT_CHARS + 8 * 1024)
"""Tier E events of ``TEXT_CHARS`` characters one body holds (16)."""
GLOB_ROOM = GLOB_CHARS - len("*/")
"""A glob over every collection (``*/``) leaves this many characters to file names."""

_LETTERS = b"abcdefghijklmnopqrstuvwxyz"
_WORDS = bytes.maketrans(bytes(range(256)), (_LETTERS * 9)[:216] + b" " * 40)
_ONLY_LETTERS = bytes.maketrans(bytes(range(256)), (_LETTERS * 10)[:256])


def fresh_words(rng: random.Random, chars: int) -> str:
    """``chars`` characters of random lowercase words of about five letters."""
    return "w" + rng.randbytes(chars - 2).translate(_WORDS).decode() + "w"


def short_words(rng: random.Random, words: int) -> str:
    """``words`` random three-letter words: ``LARGEST_WORDS`` of them make the most chunks
    an entry may have within ``TEXT_CHARS``, each filling the model's window."""
    letters = rng.randbytes(3 * words).translate(_ONLY_LETTERS).decode()
    return " ".join(letters[i : i + 3] for i in range(0, len(letters), 3))


@dataclass
class Target:
    """What the attacker's requests name, and what their answers taught it: the entries it
    wrote (to delete) and its interactions (to rate)."""

    key: str
    namespace: str
    collection: str
    folder: str
    """The collection's folder on the server's disk."""
    documents: list[str]
    """``<collection>/<relative path>`` of each of its documents."""
    entries: list[str]
    """Ids of the namespace's largest entries."""
    vocabulary: str
    """Text those entries are made of."""
    today: str
    written: list[str] = field(default_factory=list)
    interactions: list[str] = field(default_factory=list)

    def question(self, rng: random.Random) -> str:
        start = rng.randrange(len(self.vocabulary) - QUESTION)
        return self.vocabulary[start : start + QUESTION].strip() or "walk"

    def written_id(self, rng: random.Random) -> str:
        """An entry it wrote (each deleted once), else an id no entry has (404)."""
        try:
            return self.written.pop()
        except IndexError:
            return f"walk-{rng.randrange(10**9)}"

    def learn(self, path: str, status: int, head: bytes) -> None:
        """Keep the ids a write answered, and the interaction of a retrieve or a context
        (each the first field of its answer)."""
        if status == 201 and path == "/v1/events" and (found := _IDS.match(head)):
            self.written.extend(i.decode() for i in re.findall(rb'"([^"]+)"', found[1]))
        elif status == 200 and (found := _INTERACTION.match(head)):
            self.interactions.append(found[1].decode())


_IDS = re.compile(rb'\{"ids":\[([^\]]*)\]')
_INTERACTION = re.compile(rb'\{"interaction_id":"([^"]+)"')
Generator = Callable[[Target, random.Random], Any]


def _paths(t: Target, rng: random.Random) -> str:
    """A list of documents as long as a pattern may be."""
    room, listed = most(wire.DocumentsRequest, "pattern"), list[str]()
    for path in rng.sample(t.documents, len(t.documents)):
        if len(", ".join([*listed, path])) > room:
            break
        listed.append(path)
    return ", ".join(listed)


def _cjk(rng: random.Random) -> str:
    return chr(rng.randrange(0x4E00, 0x9FA5))


def _events(tier: str, count: int, text: Callable[[random.Random], str]) -> Generator:
    """``count`` events of one thread (each indexed with the one before it)."""

    def events(t: Target, rng: random.Random) -> list[dict[str, Any]]:
        common = {"tier": tier, "namespace": t.namespace, "thread": fresh_words(rng, 40)}
        return [common | {"text": text(rng)} for _ in range(count)]

    return events


def _one_chunk(rng: random.Random) -> str:
    return fresh_words(rng, DEFAULTS.chunking.words * 6)  # about six characters a word


PATTERNS: dict[str, Generator] = {
    # Each made new by a random character: no compiled pattern kept serves it.
    f"'?' x {GLOB_ROOM}": lambda t, r: (
        "*/" + "?" * (n := r.randrange(GLOB_ROOM)) + _cjk(r) + "?" * (GLOB_ROOM - n - 1)
    ),
    f"'*?' x {GLOB_ROOM // 2 - 1}": lambda t, r: "*/" + "*?" * (GLOB_ROOM // 2 - 1) + "*" + _cjk(r),
    f"'[!a-z]' x {GLOB_ROOM // 6}": lambda t, r: (
        "*/" + f"[!a-{r.choice('bcdefghijklmnopqrstuvwxyz')}]" * (GLOB_ROOM // 6)
    ),
    # 80-character names and .md: every document matches, the first 100 are read.
    "every document": lambda t, r: "*/" + "*?" * 80 + "*" + r.choice("dm") + "*",
    "a list of paths": _paths,
}
GENERATORS: dict[str, Generator] = {
    "ns": lambda t, r: t.namespace,
    "collection": lambda t, r: t.collection,
    "folder": lambda t, r: t.folder,
    "today": lambda t, r: t.today,
    "end of today": lambda t, r: f"{t.today}T23:59:59Z",
    "key": lambda t, r: t.key,
    "large": lambda t, r: r.choice(t.entries),
    "written": lambda t, r: t.written_id(r),
    "document": lambda t, r: r.choice(t.documents),
    "interaction": lambda t, r: r.choice(t.interactions or ["none"]),
    "question": lambda t, r: t.question(r),
    "name": lambda t, r: f"walk{r.randrange(10**9)}",
    "comment": lambda t, r: fresh_words(r, most(wire.FeedbackRequest, "comment")),
    "tags": lambda t, r: [fresh_words(r, LABEL_CHARS) for _ in range(MAX_TAGS)],
    "largest text": lambda t, r: short_words(r, LARGEST_WORDS),
    "written text": lambda t, r: short_words(r, WRITTEN_WORDS),
    "fresh text": lambda t, r: fresh_words(r, TEXT_CHARS),
    "tier E body": _events("E", E_EVENTS, lambda r: fresh_words(r, TEXT_CHARS)),
    "tier E write": lambda t, r: [
        *_events("E", 1, lambda r: fresh_words(r, TEXT_CHARS))(t, r),
        *_events("E", 1, lambda r: fresh_words(r, E_WRITE_CHARS - TEXT_CHARS))(t, r),
    ],
    "tier C batch": _events("C", BATCH, _one_chunk),
    "tier C write": _events("C", PER_WRITE, _one_chunk),
    "promoted ids": lambda t, r: [f"walk-{n}" for n in range(most(wire.PromoteRequest, "ids"))],
    **{f"pattern {name}": made for name, made in PATTERNS.items()},
}
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def fill(template: Any, t: Target, rng: random.Random) -> Any:
    """``template`` with each string ``{name}`` made by ``GENERATORS[name]``."""
    if isinstance(template, str) and (found := _PLACEHOLDER.fullmatch(template)):
        return GENERATORS[found[1]](t, rng)
    if isinstance(template, dict):
        return {k: fill(v, t, rng) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, t, rng) for v in template]
    return template


@dataclass(frozen=True)
class Call:
    """One HTTP request; ``path`` with its query."""

    method: str
    path: str
    body: bytes = b""
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Request:
    """One request an operation is sent as, as a template."""

    operation: str
    name: str
    method: str
    path: str
    body: Any = None
    form: bool = False
    """``body`` is sent as a form (the console's)."""
    content_type: str = JSON
    """Other than JSON: ``body`` makes the text sent as it is."""
    refused: bool = False
    """An agent key may not call it: 403, 404 or 405."""
    too_large: bool = False
    """A write of more chunks than one write of an agent may embed: 413."""

    def call(self, t: Target, rng: random.Random) -> Call:
        path = _PLACEHOLDER.sub(lambda m: _quoted(GENERATORS[m[1]](t, rng)), self.path)
        body = self.body
        headers = (("Accept", f"{JSON}, text/event-stream"),) if path == "/mcp" else ()
        if body is None:
            return Call(self.method, path, headers=headers)
        made = fill(body, t, rng)
        if self.form:
            return Call(self.method, path, urlencode(made).encode(), FORM)
        if self.content_type != JSON:
            return Call(self.method, path, str(made).encode(), self.content_type)
        return Call(self.method, path, json.dumps(made).encode(), JSON, headers)


def _quoted(value: object) -> str:
    """A value in a path or query; a query string made by ``urlencode`` is left as it is."""
    return quote(str(value), safe="/=&+%")


def tool(name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body of an MCP tool call: one stateless JSON-RPC POST to ``/mcp``."""
    params = {"name": name, "arguments": arguments or {}}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def _export_file(t: Target, rng: random.Random) -> str:
    """An export file of tier E entries, as large as a body may be."""
    lines = [{"record": "header", "format": "strata-namespace", "version": 2}]
    for n in range(E_EVENTS):
        entry = {"record": "entry", "id": f"walk-{n}", "tier": "E", "timestamp": 0}
        lines.append(entry | {"text": fresh_words(rng, TEXT_CHARS)})
    lines.append({"record": "end", "lines": len(lines)})
    return "\n".join(map(json.dumps, lines))


CONSOLE_SEARCH = {"q": "{question}", "namespace": "{ns}", "mode": "hybrid", "limit": "100"}
CONSOLE_SEARCH |= {"archived": "on", "superseded": "on", "weak": "on", "retrieve": "on"}
GENERATORS["export file"] = _export_file
GENERATORS["console search"] = lambda t, r: urlencode(fill(CONSOLE_SEARCH, t, r))
# The tables, one request a row, kept so (the formatter would spread each over lines).
# fmt: off
QUESTION_OF = {"question": "{question}", "namespace": "{ns}"}
SEARCH = {"query": "{question}", "namespace": "{ns}", "mode": "hybrid", "min_score": 0}
SEARCH |= {"limit": most(wire.SearchRequest, "limit"), "include_superseded": True}
WIDEST = {"explain": True, "include_archived": True, "rerank": True}
CONTEXT = {"max_tokens": TOKENS, "max_entries": most(wire.ContextRequest, "max_entries")}
TOP_N = {"top_n": most(wire.RetrieveRequest, "top_n")}
DOCUMENT_BYTES = most(wire.DocumentsRequest, "max_bytes")
EVENT_A = {"tier": "A", "text": "{written text}", "namespace": "{ns}", "tags": "{tags}"}
LARGEST_A = EVENT_A | {"text": "{largest text}"}
CHUNKS = f"{PER_WRITE} chunks"
R = Request

REST = [
    R("GET /v1/entries/{entry_id}", "a 1 MB entry", "GET", "/v1/entries/{large}?namespace={ns}"),
    R("GET /v1/entries/{entry_id}/history", "a large one's", "GET", "/v1/entries/{large}/history"),
    R("POST /v1/events", f"tier A, {CHUNKS}", "POST", "/v1/events", {"events": [EVENT_A]}),
    R("POST /v1/events", f"tier E, {E_WRITE_CHARS:,} characters", "POST", "/v1/events",
      {"events": "{tier E write}"}),
    R("POST /v1/events", f"tier C, {PER_WRITE} events", "POST", "/v1/events",
      {"events": "{tier C write}"}),
    R("POST /v1/events", f"tier A, {MAX_CHUNKS} chunks", "POST", "/v1/events",
      {"events": [LARGEST_A]}, too_large=True),
    R("POST /v1/events", f"tier E, {E_EVENTS} x 1 MB", "POST", "/v1/events",
      {"events": "{tier E body}"}, too_large=True),
    R("POST /v1/events", f"tier C, {BATCH} events", "POST", "/v1/events",
      {"events": "{tier C batch}"}, too_large=True),
    R("DELETE /v1/entries/{entry_id}", "one it wrote", "DELETE", "/v1/entries/{written}"),
    R("POST /v1/search", "hybrid, 100 explained", "POST", "/v1/search", SEARCH | WIDEST),
    R("POST /v1/search", "as of today", "POST", "/v1/search", SEARCH | {"as_of": "{end of today}"}),
    R("POST /v1/context", f"{TOKENS} tokens", "POST", "/v1/context", QUESTION_OF | CONTEXT),
    R("POST /v1/retrieve", "top 50", "POST", "/v1/retrieve", QUESTION_OF | TOP_N),
    R("POST /v1/routine-check", "a long task", "POST", "/v1/routine-check", {"task": "{question}"}),
    R("POST /v1/feedback", "a long comment", "POST", "/v1/feedback",
      {"interaction_id": "{interaction}", "rating": "down", "comment": "{comment}"}),
    R("GET /v1/reports/daily", "today", "GET", "/v1/reports/daily?date={today}&namespace={ns}"),
    R("POST /v1/references", "a long question", "POST", "/v1/references",
      {"question": "{question}", "nothing": True, "namespace": "{ns}"}),
    R("GET /v1/references", "1000", "GET", "/v1/references?namespace={ns}&limit=1000"),
    R("GET /v1/collections", "all", "GET", "/v1/collections"),
    R("GET /v1/collections/{name}", "300 files", "GET", "/v1/collections/{collection}"),
    R("GET /v1/documents", "a CJK document", "GET", "/v1/documents?path={document}"),
    *(R("POST /v1/documents/batch", name, "POST", "/v1/documents/batch",
        {"pattern": f"{{pattern {name}}}", "max_bytes": DOCUMENT_BYTES}) for name in PATTERNS),
    R("GET /v1/namespaces/{namespace}/export", "with vectors", "GET",
      "/v1/namespaces/{ns}/export?vectors=true"),
    R("GET /v1/stats", "all", "GET", "/v1/stats"),
    R("GET /health", "health", "GET", "/health"),
]
REFUSED = [
    R("POST /v1/collections", "a folder", "POST", "/v1/collections",
      {"name": "{name}", "path": "{folder}", "mask": "**/*", "namespace": "{ns}"}),
    R("DELETE /v1/collections/{name}", "the CJK one", "DELETE", "/v1/collections/{collection}"),
    R("PATCH /v1/collections/{name}", "a rename", "PATCH", "/v1/collections/{collection}",
      {"name": "{name}"}),
    R("POST /v1/collections/{name}/update", "a re-scan", "POST",
      "/v1/collections/{collection}/update"),
    R("GET /v1/admin/erasures", "all", "GET", "/v1/admin/erasures"),
    R("GET /v1/admin/jobs", "all", "GET", "/v1/admin/jobs"),
    R("POST /v1/admin/promote", "1000 ids", "POST", "/v1/admin/promote", {"ids": "{promoted ids}"}),
    R("GET /v1/admin/quarantine", "all", "GET", "/v1/admin/quarantine"),
    R("DELETE /v1/references/{reference_id}", "one", "DELETE", "/v1/references/r1?namespace={ns}"),
    R("POST /v1/admin/sweep", "its own", "POST", "/v1/admin/sweep", {"namespace": "{ns}"}),
    R("GET /v1/admin/calibrations", "its own", "GET", "/v1/admin/calibrations?namespace={ns}"),
    R("POST /v1/admin/calibrations/rollback", "to shipped", "POST",
      "/v1/admin/calibrations/rollback", {"version": 0, "namespace": "{ns}"}),
    R("GET /ui/calibration", "its own", "GET", "/ui/calibration?namespace={ns}"),
    R("POST /ui/calibration/sweep", "its own", "POST", "/ui/calibration/sweep?namespace={ns}",
      {}, form=True),
    R("POST /ui/calibration/rollback", "to shipped", "POST",
      "/ui/calibration/rollback?namespace={ns}", {"version": "0"}, form=True),
    R("POST /ui/calibration/references/{reference_id}/remove", "one", "POST",
      "/ui/calibration/references/r1/remove?namespace={ns}", {}, form=True),
    R("GET /v1/admin/rebuild", "state", "GET", "/v1/admin/rebuild"),
    R("POST /v1/admin/rebuild", "start", "POST", "/v1/admin/rebuild"),
    R("POST /v1/admin/jobs/{name}/run", "archive", "POST", "/v1/admin/jobs/archive/run"),
    R("DELETE /v1/namespaces/{namespace}", "its own", "DELETE", "/v1/namespaces/{ns}?confirm={ns}"),
    R("POST /v1/namespaces/{namespace}/import", "a 16 MiB file", "POST",
      "/v1/namespaces/{ns}/import?skip_bad_lines=true", "{export file}",
      content_type="application/x-ndjson"),
    R("GET /metrics", "all", "GET", "/metrics"),
    R("POST /ui/entries/{entry_id}/promote", "a large entry", "POST", "/ui/entries/{large}/promote",
      {"namespace": "{ns}"}, form=True),
    R("GET /ui/jobs", "all", "GET", "/ui/jobs"),
    R("GET /ui/service", "at a glance", "GET", "/ui/service"),
    R("POST /ui/jobs/{name}/run", "archive", "POST", "/ui/jobs/archive/run", {}, form=True),
    R("POST /ui/jobs/rebuild", "start", "POST", "/ui/jobs/rebuild", {}, form=True),
    R("GET /ui/jobs/rebuild/progress", "state", "GET", "/ui/jobs/rebuild/progress"),
    R("POST /ui/collections/{name}/rescan", "a re-scan", "POST",
      "/ui/collections/{collection}/rescan", {}, form=True),
    R("GET /ui/{rest}", "a long unknown path", "GET", "/ui/" + "x" * 2000),
    R("GET /mcp", "a stream", "GET", "/mcp"),
    R("DELETE /mcp", "a session", "DELETE", "/mcp"),
]
CONSOLE = [
    R("GET /ui", "a search and a retrieve, 100 explained", "GET", "/ui?{console search}"),
    R("GET /ui/entries/{entry_id}", "a 1 MB entry", "GET", "/ui/entries/{large}?namespace={ns}"),
    R("GET /ui/entries/{entry_id}/delete", "a 1 MB entry", "GET",
      "/ui/entries/{large}/delete?namespace={ns}"),
    R("POST /ui/entries/{entry_id}/delete", "one it wrote", "POST", "/ui/entries/{written}/delete",
      {"namespace": "{ns}"}, form=True),
    R("GET /ui/namespaces", "all", "GET", "/ui/namespaces"),
    R("GET /ui/reports", "30 days", "GET", "/ui/reports?date={today}&namespace={ns}"),
    R("POST /ui/calibration/references", "a long question", "POST",
      "/ui/calibration/references?namespace={ns}", {"question": "{question}", "nothing": "1"},
      form=True),
    R("GET /ui/collections", "all", "GET", "/ui/collections"),
    R("GET /ui/collections/{name}", "300 files", "GET", "/ui/collections/{collection}"),
    R("GET /ui/collections/{name}/progress", "state", "GET",
      "/ui/collections/{collection}/progress"),
    R("GET /ui/documents", "a CJK document", "GET", "/ui/documents?path={document}"),
    R("GET /ui/sign-in", "signed in", "GET", "/ui/sign-in?next=/ui"),
    R("POST /ui/sign-in", "its own key", "POST", "/ui/sign-in", {"key": "{key}", "next": "/ui"},
      form=True),
    R("POST /ui/sign-out", "no session", "POST", "/ui/sign-out", {}, form=True),
    R("GET /ui/static/{file_path}", "the script", "GET", "/ui/static/console.js"),
]
MCP = [
    R("MCP search", "hybrid, 100 hits", "POST", "/mcp", tool("search", SEARCH)),
    R("MCP retrieve", "top 50", "POST", "/mcp", tool("retrieve", QUESTION_OF | TOP_N)),
    R("MCP context", f"{TOKENS} tokens", "POST", "/mcp",
      tool("context", QUESTION_OF | {"max_tokens": TOKENS, "tiers": ["A", "C", "E"]})),
    R("MCP get", "a 1 MB entry", "POST", "/mcp", tool("get", {"id_or_path": "{large}"})),
    R("MCP get", "a CJK document", "POST", "/mcp", tool("get", {"id_or_path": "{document}"})),
    *(R("MCP multi_get", name, "POST", "/mcp",
        tool("multi_get", {"pattern": f"{{pattern {name}}}", "max_bytes": DOCUMENT_BYTES}))
      for name in PATTERNS),
    R("MCP remember", f"tier A, {CHUNKS}", "POST", "/mcp",
      tool("remember", {"text": "{written text}", "tier": "A", "tags": "{tags}"})),
    R("MCP remember", f"tier A, {MAX_CHUNKS} chunks", "POST", "/mcp",
      tool("remember", {"text": "{largest text}", "tier": "A"}), too_large=True),
    R("MCP remember", "tier E, 1 MB", "POST", "/mcp",
      tool("remember", {"text": "{fresh text}", "tier": "E"})),
    R("MCP record_reference", "a long question", "POST", "/mcp",
      tool("record_reference", {"question": "{question}", "nothing": True})),
    R("MCP status", "all", "POST", "/mcp", tool("status")),
]
# fmt: on
TABLE = [*REST, *(dataclasses.replace(r, refused=True) for r in REFUSED), *CONSOLE, *MCP]
"""Every request of the walk, in the order they are sent alone."""


def operations(requests: Iterable[Request]) -> set[str]:
    return {r.operation for r in requests}


def document_operations(document: Mapping[str, Any]) -> set[str]:
    """``METHOD /path`` of every operation an OpenAPI document lists."""
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    paths: Mapping[str, Mapping[str, Any]] = document["paths"]
    return {f"{m.upper()} {path}" for path, item in paths.items() for m in item if m in methods}


def console_operations() -> set[str]:
    """``METHOD /path`` of every route of the console's router."""
    from service.ui import console_router

    server = replace(DEFAULTS.server, ui_secret="s" * 32)  # no secret file is written
    router = console_router(replace(DEFAULTS, server=server))
    return {
        f"{method} {_TYPED.sub('}', route.path)}"
        for route in router.routes
        for handler in getattr(route, "route_handlers", ())
        for method in set(handler.http_methods) - HIDDEN_METHODS
    }


_TYPED = re.compile(r":\w+}")
"""A path parameter's type, as a router writes it (``{name:str}``)."""


def mcp_operations(tools: Iterable[str]) -> set[str]:
    """``MCP <tool>`` of each tool, and the methods ``/mcp`` does not serve."""
    return {f"MCP {name}" for name in tools} | MCP_TRANSPORT
