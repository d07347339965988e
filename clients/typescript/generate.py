"""Write the TypeScript types of the REST API from the service's OpenAPI document.

    python clients/typescript/generate.py          # writes src/openapi.ts
    python clients/typescript/generate.py --check  # exits 1 if src/openapi.ts is stale

The document is the one the service serves at ``/schema/openapi.json`` with API keys and
limits on (so every operation lists 401 and 429), built from the app without starting it.
Every component schema becomes an exported type and every operation an entry of ``Routes``,
keyed ``"METHOD /path"``: its path and query parameters, its body, its answer and the
statuses of the problem details it may answer with. ``StrataClient.request`` takes any key of
``Routes``, so an operation the service gains is callable, typed, as soon as this has run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "src" / "openapi.ts"
METHODS = ("get", "put", "post", "delete", "patch")
BOUNDS = {
    "minimum": ">=",
    "exclusiveMinimum": ">",
    "maximum": "<=",
    "minLength": "length >=",
    "maxLength": "length <=",
    "minItems": "items >=",
    "maxItems": "items <=",
}
IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
HEADER = """\
// Generated from the strata OpenAPI document by clients/typescript/generate.py: do not edit.
// Regenerate with `make schemas`.
"""


def document() -> dict[str, Any]:
    """The OpenAPI document the service serves when it has API keys and limits."""
    sys.path.insert(0, str(HERE.parents[1]))
    from service.app import create_app
    from service.edge.openapi import contract
    from service.settings import Settings

    app = create_app(Settings.from_env({}))
    return contract(app.openapi_schema.to_schema(), keys=True, limited=True)


def render(doc: dict[str, Any]) -> str:
    schemas: dict[str, Any] = doc.get("components", {}).get("schemas", {})
    parts = [HEADER]
    for name in sorted(schemas):
        parts.append(_declaration(name, schemas[name]))
    parts.append(_routes(doc.get("paths", {})))
    return "\n".join(parts)


# -- schemas


def ts(schema: Any, indent: str = "") -> str:
    """The TypeScript type of a JSON Schema."""
    if schema is True or not isinstance(schema, dict) or not schema:
        return "unknown"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return _union([json.dumps(value) for value in schema["enum"]])
    for key in ("anyOf", "oneOf"):
        if key in schema and not _is_object(schema):
            return _union([ts(member, indent) for member in schema[key]])
    if "allOf" in schema and not _is_object(schema):
        return " & ".join(_grouped(ts(member, indent)) for member in schema["allOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([ts({**schema, "type": one}, indent) for one in kind])
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind in ("integer", "number"):
        return "number"
    if kind == "array":
        return f"Array<{ts(schema.get('items', True), indent)}>"
    if _is_object(schema):
        return _object(schema, indent)
    return "unknown"


def _is_object(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" or "properties" in schema


def _object(schema: dict[str, Any], indent: str) -> str:
    """An object's properties; ``anyOf``/``allOf`` beside properties are rules between fields
    (this tier needs that field), which the shape does not carry."""
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", not properties)
    lines = [
        _property(name, prop, name in schema.get("required", ()), indent + "  ")
        for name, prop in properties.items()
    ]
    if extra is not False:
        lines.append(f"{indent}  [key: string]: {ts(extra, indent + '  ')};")
    if not lines:
        return "Record<string, never>"
    return "{\n" + "\n".join(lines) + f"\n{indent}}}"


def _property(name: str, schema: dict[str, Any], required: bool, indent: str) -> str:
    key = name if IDENTIFIER.match(name) else json.dumps(name)
    doc = _doc(_notes(schema), indent)
    return f"{doc}{indent}{key}{'' if required else '?'}: {ts(schema, indent)};"


def _declaration(name: str, schema: dict[str, Any]) -> str:
    doc = _doc([schema["description"]] if schema.get("description") else [], "")
    body = ts(schema)
    if _is_object(schema) and body.startswith("{"):
        return f"{doc}export interface {name} {body}\n"
    return f"{doc}export type {name} = {body};\n"


def _notes(schema: dict[str, Any]) -> list[str]:
    """What a reader of a field should know: its description, bounds and default."""
    described = [schema] + [m for m in schema.get("anyOf", []) + schema.get("oneOf", [])]
    notes = [m["description"] for m in described if isinstance(m, dict) and m.get("description")]
    bounds = []
    for member in described:
        if not isinstance(member, dict):
            continue
        for key, word in BOUNDS.items():
            if key in member:
                bounds.append(f"{word} {_number(member[key])}")
    if bounds:
        notes.append(", ".join(dict.fromkeys(bounds)) + ".")
    if "default" in schema:
        notes.append(f"Default: `{json.dumps(schema['default'])}`.")
    return notes


def _doc(notes: list[str], indent: str) -> str:
    if not notes:
        return ""
    sentences = [note if note.endswith((".", "!", "?")) else f"{note}." for note in notes]
    text = " ".join(sentences).replace("*/", "*\\/")
    return f"{indent}/** {text} */\n"


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _union(members: list[str]) -> str:
    unique = list(dict.fromkeys(members))
    return " | ".join(_grouped(m) if len(unique) > 1 else m for m in unique)


def _grouped(member: str) -> str:
    return f"({member})" if " | " in member or " & " in member else member


# -- operations


def _routes(paths: dict[str, Any]) -> str:
    entries = []
    for path in sorted(paths):
        item = paths[path]
        for method in METHODS:
            if method in item:
                shared = item.get("parameters", [])
                entries.append(_route(method, path, item[method], shared))
    routes = "\n".join(entries)
    return (
        "/** Every operation of the REST API, keyed `METHOD /path`: its path parameters\n"
        " * (`params`), query parameters (`query`), JSON body (`body`), successful answer\n"
        " * (`response`; `Response` for one that is not JSON) and the statuses of the problem\n"
        " * details it may answer with (`problems`). */\n"
        f"export interface Routes {{\n{routes}}}\n\n"
        "export type Route = keyof Routes;\n"
    )


def _route(method: str, path: str, operation: dict[str, Any], shared: list[Any]) -> str:
    parameters = [*shared, *operation.get("parameters", [])]
    notes = [operation["description"]] if operation.get("description") else []
    doc = _doc([*notes, f"`{operation['operationId']}`"], "  ")
    fields = [
        f"    params: {_parameters(parameters, 'path')};",
        f"    query: {_parameters(parameters, 'query')};",
        f"    body: {_body(operation.get('requestBody'))};",
        f"    response: {_response(operation.get('responses', {}))};",
        f"    problems: {_problems(operation.get('responses', {}))};",
    ]
    return f"{doc}  {json.dumps(f'{method.upper()} {path}')}: {{\n" + "\n".join(fields) + "\n  };\n"


def _parameters(parameters: list[dict[str, Any]], where: str) -> str:
    chosen = [p for p in parameters if p.get("in") == where]
    if not chosen:
        return "Record<string, never>"
    lines = []
    for p in chosen:
        schema = {**p.get("schema", {}), "description": p.get("description")}
        lines.append(_property(p["name"], schema, bool(p.get("required")), "      "))
    return "{\n" + "\n".join(lines) + "\n    }"


def _body(body: dict[str, Any] | None) -> str:
    if not body:
        return "undefined"
    content: dict[str, Any] = body.get("content", {})
    if "application/json" in content:
        return ts(content["application/json"].get("schema", True), "    ")
    return "BodyInit"


def _response(responses: dict[str, Any]) -> str:
    kinds = []
    for status in sorted(s for s in responses if s.startswith("2")):
        content: dict[str, Any] = responses[status].get("content") or {}
        if not content:
            kinds.append("undefined")
        elif "application/json" in content:
            kinds.append(ts(content["application/json"].get("schema", True), "    "))
        else:
            kinds.append("Response")
    return _union(kinds) if kinds else "undefined"


def _problems(responses: dict[str, Any]) -> str:
    statuses = sorted(int(s) for s in responses if s.isdigit() and int(s) >= 400)
    return " | ".join(str(s) for s in statuses) or "never"


def main(argv: list[str]) -> int:
    text = render(document())
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run `make schemas`", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(HERE.parents[1])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
