"""docs/reference/configuration.md, written from the settings themselves: every ``STRATA_*``
variable, in its group, with its default, the values it accepts and its docstring.

``python -m scripts.configuration_reference`` rewrites the page (``make docs`` does);
``--check`` only says whether it is stale. A test fails while the page differs from what
this prints, so a setting never changes without its documentation.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import sys
import textwrap
from pathlib import Path

from msgspec import inspect as types
from msgspec.structs import fields

from service.domain.answers.confidence import SHIPPED, Calibration
from service.settings import EMPTY_MEANS_OFF, Group, Settings, variable

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "configuration.md"

GROUPS: dict[str, tuple[str, str]] = {
    "server": (
        "Server",
        "Where the service listens, who may call it, and how much one request may ask.",
    ),
    "limits": ("Limits", "What one API key may spend ([Security](../operations/security.md))."),
    "storage": (
        "Storage",
        "Where the ledger, the indexes and the models live "
        "([Running](../operations/running.md), [Running a cluster](../operations/cluster.md)).",
    ),
    "models": ("Models", "The embedding model and the cross-encoder, and how they run."),
    "search": ("Search", "How a search ranks ([Searching](../guide/searching.md))."),
    "chunking": ("Chunking", "How texts are cut for embedding."),
    "answers": (
        "Answers",
        "Retrieve's verdict and ranking, and the routine check "
        "([Retrieve and context](../guide/retrieve-context.md)).",
    ),
    "lifecycle": (
        "Lifecycle",
        "How long entries live, and when the jobs run ([Tiers and lifecycle](../guide/tiers.md)). "
        "A tier C entry's lifetime comes from the event's own `ttl_days` if it has one, else "
        "from `STRATA_TTL_BY_CHAIN_TYPE` for its `chain_type`, else from `STRATA_C_TTL_DAYS`; "
        "expiry counts from the event's `timestamp`, which defaults to the time it was received.",
    ),
    "collections": (
        "Collections",
        "Folders of markdown kept searchable ([Collections](../guide/collections.md)).",
    ),
    "cluster": (
        "Cluster",
        "Replicas over one database ([Running a cluster](../operations/cluster.md)).",
    ),
    "telemetry": (
        "Telemetry",
        "Metrics, logs and traces ([Observability](../operations/observability.md)).",
    ),
    "upstream": (
        "Upstream",
        "Another memory asked when this one has nothing ([Upstream recall](../guide/upstream.md)).",
    ),
}
"""Each group's heading and the sentence under it, in the order of ``Settings``."""

EXTRA = {
    "api_keys_file": 'A key may have a `"name"`, which entry histories record as the actor.',
    "ui_secret": "The random one is created once, with mode 0600.",
    "embedding_backend": "`onnx-int8` is exported under `STRATA_MODEL_CACHE`; it embeds 3x as many "
    "texts a second as torch, with hybrid quality unchanged on both dev sets.",
    "fusion": "`learned`: a model over evidence every tier has, fitted by `strata calibrate`; "
    "`score`: bounded BM25 and cosine, mixed by `STRATA_KEYWORD_SHARE`; `rrf`: reciprocal rank "
    "fusion.",
    "min_score": "A retrieve, too, can answer that nothing is relevant.",
    "query_cache_bytes": "An outcome heavier than that is not cached.",
    "max_chunks": "That is about 240,000 words at the default 150/30; the refusal names the "
    "event's `text`, and nothing of its batch is written.",
    "strong_match_threshold": "The shipped calibration recommends "
    f"{Calibration.load(SHIPPED).threshold:g}.",
}
"""What the page adds to a docstring: figures and details an operator looks for here."""

LINKS = {"docs/api.md": "[the REST API reference](api.md)"}
"""Paths the docstrings name, as links from this page."""


def render() -> str:
    """The whole page."""
    settings = Settings()
    empty_means_none = " and ".join(f"`{variable(name)}`" for name in sorted(EMPTY_MEANS_OFF))
    lines = [
        "# Configuration reference",
        "",
        "<!-- Generated from service/settings/ by `python -m scripts.configuration_reference`"
        " (make docs); do not edit. -->",
        "",
        "Every setting of the service is an environment variable, `STRATA_` and the setting's",
        "name in capitals; the groups below only order them. The flags `--host`, `--port` and",
        "`--data-dir` of `strata serve` take precedence over their variables. Every value is",
        "checked at start, and a bad one stops the service with a message naming its variable.",
        "A mapping is given as JSON (`STRATA_TIER_WEIGHTS='{\"A\": 2}'`). An empty variable",
        f"counts as unset, except {empty_means_none}, where empty means none.",
        "How to choose them: [Configuration](../operations/configuration.md).",
    ]
    for group in fields(Settings):
        title, about = GROUPS[group.name]
        docs = docstrings(group.type)
        values = getattr(settings, group.name)
        lines += [
            "",
            f"## {title}",
            "",
            about,
            "",
            "| Variable | Default | Accepts | Description |",
            "|---|---|---|---|",
        ]
        for field in fields(group.type):
            cells = (
                f"`{variable(field.encode_name)}`",
                shown(getattr(values, field.name)),
                accepts(types.type_info(field.type)),
                prose(" ".join(filter(None, (docs[field.name], EXTRA.get(field.encode_name))))),
            )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def docstrings(group: type[Group]) -> dict[str, str]:
    """Each field of ``group`` to the docstring written under it."""
    found: dict[str, str] = {}
    body = ast.parse(textwrap.dedent(inspect.getsource(group))).body[0]
    assert isinstance(body, ast.ClassDef)
    for node, after in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            found[node.target.id] = inspect.cleandoc(after.value.value)
    missing = sorted(f.encode_name for f in fields(group) if f.name not in found)
    if missing:
        raise ValueError(f"settings without a docstring: {', '.join(map(variable, missing))}")
    return found


def prose(doc: str) -> str:
    """A docstring as one table cell of Markdown."""
    text = " ".join(doc.split())
    text = text.replace("``", "`").replace("|", "\\|")
    # Variables named in passing read as code, as they are everywhere else in the docs.
    text = re.sub(r"(?<![`\w])((?:STRATA|OTEL)_[A-Z0-9_]+)(?![`\w])", r"`\1`", text)
    for path, link in LINKS.items():
        text = text.replace(path, link)
    return text


def shown(value: object) -> str:
    """A default as the page shows it."""
    if value is None:
        return "unset"
    if isinstance(value, dict):
        return f"`{json.dumps(value)}`"
    if value == "":
        return '`""`'
    return f"`{value}`"


def accepts(kind: types.Type, *, within: bool = False) -> str:
    """The values a type admits, in words; ``within``: as the values of a JSON object."""
    if isinstance(kind, types.UnionType) and within:
        named = [accepts(k) for k in kind.types if not isinstance(k, types.NoneType)]
        return " or ".join(named) + " or null"
    if isinstance(kind, types.UnionType):
        named = [accepts(k) for k in kind.types if not isinstance(k, types.NoneType)]
        return " or ".join(named) + ", or unset"
    if isinstance(kind, types.LiteralType):
        words = [f"`{value}`" for value in kind.values]
        return ", ".join(words[:-1]) + f" or {words[-1]}"
    if isinstance(kind, types.IntType | types.FloatType):
        return ("integer" if isinstance(kind, types.IntType) else "number") + bounds(kind)
    if isinstance(kind, types.DictType):
        values = accepts(kind.value_type, within=True)
        return "JSON object of " + re.sub(r"^(integer|number)", r"\1s", values)
    if isinstance(kind, types.CustomType) and kind.cls is Path:
        return "path"
    if isinstance(kind, types.StrType):
        return "text"
    raise TypeError(f"no words for {kind}")


def bounds(kind: types.IntType | types.FloatType) -> str:
    """`` ≥ 1``, `` in [0, 1]``, `` in (0, 1]``: a number's bounds, if any."""
    low = (f"[{kind.ge}", kind.ge) if kind.ge is not None else (f"({kind.gt}", kind.gt)
    high = (f"{kind.le}]", kind.le) if kind.le is not None else (f"{kind.lt})", kind.lt)
    if low[1] is not None and high[1] is not None:
        return f" in {low[0]}, {high[0]}"
    if low[1] is not None:
        return f" ≥ {kind.ge}" if kind.ge is not None else f" > {kind.gt}"
    if high[1] is not None:
        return f" ≤ {kind.le}" if kind.le is not None else f" < {kind.lt}"
    return ""


def main(argv: list[str]) -> int:
    page = render()
    if "--check" in argv:
        stale = not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page
        print(f"{PAGE} is {'stale: run make docs' if stale else 'up to date'}")
        return 1 if stale else 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
