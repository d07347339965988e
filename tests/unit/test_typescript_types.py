"""The TypeScript client's types (clients/typescript/src/openapi.ts) are the service's OpenAPI
document, regenerated; the generator covers what JSON Schema says of each field."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

GENERATOR = Path(__file__).parents[2] / "clients" / "typescript" / "generate.py"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typescript_generate", GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_typescript_types_match_the_openapi_document() -> None:
    generate = generator()
    expected = generate.render(generate.document())
    assert generate.OUT.read_text() == expected, (
        "clients/typescript/src/openapi.ts is out of date; run `make schemas`"
    )


def test_json_schema_becomes_typescript() -> None:
    ts = generator().ts
    assert ts({"$ref": "#/components/schemas/Event"}) == "Event"
    assert ts({"enum": ["A", "C"]}) == '"A" | "C"'
    assert ts({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == "number | null"
    assert ts({"type": "array", "items": {"anyOf": [{"type": "string"}]}}) == "Array<string>"
    assert ts({"type": ["string", "null"]}) == "string | null"
    assert ts({"const": "pattern"}) == '"pattern"'
    assert ts({"type": "object", "additionalProperties": {"type": "number"}}) == (
        "{\n  [key: string]: number;\n}"
    )
    closed = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "from": {"type": "integer", "default": 1}},
        "required": ["id"],
        "additionalProperties": False,
        # a rule between fields, which the shape does not carry
        "anyOf": [{"properties": {"id": {"const": "x"}}}],
    }
    assert ts(closed) == "{\n  id: string;\n  /** Default: `1`. */\n  from?: number;\n}"
    assert ts({}) == "unknown"


def test_operations_become_routes_whatever_their_media_types() -> None:
    document = {
        "paths": {
            "/v1/things/{ns}/export": {
                "get": {
                    "operationId": "Export",
                    "parameters": [
                        {
                            "name": "ns",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        {"name": "vectors", "in": "query", "schema": {"type": "boolean"}},
                    ],
                    "responses": {
                        "200": {"content": {"application/x-ndjson": {"schema": {}}}},
                        "404": {"content": {"application/problem+json": {}}},
                    },
                },
                "post": {
                    "operationId": "Import",
                    "requestBody": {"content": {"application/x-ndjson": {"schema": {}}}},
                    "responses": {"204": {"description": "done"}},
                },
            }
        }
    }
    text = generator().render(document)
    export = text.split('"GET /v1/things/{ns}/export": {')[1].split("\n  };")[0]
    assert "params: {\n      ns: string;\n    };" in export
    assert "query: {\n      vectors?: boolean;\n    };" in export
    assert "body: undefined;" in export
    assert "response: Response;" in export, "a stream is left to the caller"
    assert "problems: 404;" in export
    imported = text.split('"POST /v1/things/{ns}/export": {')[1].split("\n  };")[0]
    assert "body: BodyInit;" in imported
    assert "response: undefined;" in imported
    assert "export type Route = keyof Routes;" in text
