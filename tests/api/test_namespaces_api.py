"""A namespace's export, import and erasure over the REST API, on fakes: the format, the
checks, who may do what, and that nothing is written when a line is bad."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from schemas import wire
from service.bootstrap import Runtime
from service.domain.model import Collection, Feedback, IndexedFile, Interaction
from tests.api.conftest import serve
from tests.fakes import FakeCatalog, FakeKeywordStore, FakeVectorStore
from tests.http import AS_ADMIN, AS_AGENT, KEYS, problem, write

NDJSON = {"Content-Type": "application/x-ndjson"}


def fill(keyed: TestClient[Litestar], keyed_runtime: Runtime, namespace: str = "one") -> None:
    """Entries of each tier (one archived, one with history beyond its creation), an
    interaction with feedback, a collection with a file and two reference questions."""
    events: list[dict[str, Any]] = [
        {"id": "a1", "tier": "A", "text": "Alice likes tea", "speaker": "alice", "tags": ["x"]},
        {"id": "c1", "tier": "C", "text": "Standup: finishing billing", "thread": "t"},
        {"id": "c2", "tier": "C", "text": "Reply in the thread", "thread": "t"},
        {"id": "e1", "tier": "E", "text": "GET /invoices 503", "metadata": {"code": 503}},
    ]
    write(keyed, *({**e, "namespace": namespace} for e in events), headers=AS_ADMIN)
    keyed_runtime.memory.lifecycle.set_archived([f"{namespace}:c2"], True, actor="job")
    log = keyed_runtime.stores.interactions
    asked = f"q-{namespace}"
    log.record(Interaction(asked, 5.0, namespace, "bot", "tea?", [], False, 0.1, 2.0, 0.2))
    log.add_feedback(Feedback(asked, 6.0, "down", "missed it", "ann"))
    catalog = keyed_runtime.stores.catalog
    assert isinstance(catalog, FakeCatalog)
    name = f"notes-{namespace}"
    catalog.add(Collection(f"col-{namespace}", name, namespace, "/srv/n", "*.md", "A", 1.0))
    catalog.set_file(f"col-{namespace}", IndexedFile("a.md", "h", 1), "# A\n")
    for reference in (
        {"question": "What does Alice like?", "answers": ["a1"]},
        {"question": "Who won the match?", "nothing": True},
    ):
        recorded = keyed.post(
            "/v1/references", json={**reference, "namespace": namespace}, headers=AS_ADMIN
        )
        assert recorded.status_code == 201, recorded.text


def export(keyed: TestClient[Litestar], namespace: str, **params: Any) -> list[dict[str, Any]]:
    response = keyed.get(f"/v1/namespaces/{namespace}/export", params=params, headers=AS_ADMIN)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


def body(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def import_(
    keyed: TestClient[Litestar], namespace: str, lines: list[dict[str, Any]] | str, **params: Any
) -> Any:
    text = lines if isinstance(lines, str) else body(lines)
    return keyed.post(
        f"/v1/namespaces/{namespace}/import",
        content=text.encode(),
        params=params,
        headers={**AS_ADMIN, **NDJSON},
    )


def test_an_export_holds_the_namespace_in_order(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime)
    fill(keyed, keyed_runtime, "two")
    lines = export(keyed, "one")
    kinds = [line["record"] for line in lines]
    assert kinds == [
        "header",
        *["entry"] * 4,
        "collection",
        "file",
        "interaction",
        "feedback",
        "reference",
        "reference",
        "end",
    ]
    header = lines[0]
    assert header["format"] == "strata-namespace" and header["version"] == wire.FORMAT_VERSION
    assert header["namespace"] == "one" and header["vectors"] is False
    assert header["model"] == keyed_runtime.stores.embedder.name  # type: ignore[union-attr]
    assert header["counts"] == {
        "entries": 4,
        "collections": 1,
        "files": 1,
        "interactions": 1,
        "feedback": 1,
        "references": 2,
    }
    references = [line for line in lines if line["record"] == "reference"]
    assert [(r["question"], r["answers"], r["source"]) for r in references] == [
        ("What does Alice like?", ["a1"], "admin"),
        ("Who won the match?", [], "admin"),
    ]
    entries = {line["id"]: line for line in lines if line["record"] == "entry"}
    assert list(entries) == ["a1", "c1", "c2", "e1"]
    assert entries["c2"]["state"] == "archived" and entries["a1"]["state"] == "live"
    assert entries["c2"]["context"] == "Standup: finishing billing"
    assert [h["action"] for h in entries["c2"]["history"]] == ["created", "archived"]
    assert entries["e1"]["metadata"] == {"code": 503}
    assert entries["a1"]["chunks"] is None
    assert lines[-1] == {"record": "end", "lines": len(lines) - 1}
    assert lines[-4]["comment"] == "missed it"


def test_vectors_come_with_the_chunks_when_asked(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime)
    entries = [line for line in export(keyed, "one", vectors="true") if line["record"] == "entry"]
    by_id = {line["id"]: line for line in entries}
    assert len(by_id["a1"]["chunks"]) == 1 and by_id["a1"]["chunks"][0]["vector"]
    assert by_id["e1"]["chunks"] is None  # tier E has no vectors


def test_an_import_restores_the_namespace_elsewhere_and_twice_changes_nothing(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    exported = export(keyed, "one", vectors="true")
    embedder = keyed_runtime.stores.embedder
    calls = len(embedder.calls)  # type: ignore[union-attr]
    # The collection and the interaction are the original's: their lines are skipped.
    first = import_(keyed, "copy", exported, skip_bad_lines="true")
    assert first.status_code == 200, first.text
    report = first.json()
    assert report["namespace"] == "copy" and report["source"] == "one"
    assert report["imported"]["entries"] == 4 and report["imported"]["embedded"] == 0
    assert len(embedder.calls) == calls  # type: ignore[union-attr]  # same model: vectors kept
    again = import_(keyed, "copy", exported, skip_bad_lines="true").json()["imported"]
    assert again["entries"] == 0 and again["unchanged"] == 4
    copied = export(keyed, "copy", vectors="true")
    original = [line for line in exported if line["record"] == "entry"]
    assert [line for line in copied if line["record"] == "entry"] == original
    found = keyed.post(
        "/v1/search", json={"namespace": "copy", "query": "tea"}, headers=AS_ADMIN
    ).json()
    assert [hit["id"] for hit in found["results"]][:1] == ["a1"]


def test_a_revised_decision_moves_with_what_it_replaced(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    old = {"id": "db-1", "tier": "A", "text": "Use SQLite for the ledger.", "namespace": "one"}
    new = {"id": "db-2", "tier": "A", "text": "Use Postgres for the ledger.", "namespace": "one"}
    write(keyed, old, headers=AS_ADMIN)
    write(keyed, {**new, "supersedes": ["db-1"]}, headers=AS_ADMIN)
    exported = export(keyed, "one")
    entries = {line["id"]: line for line in exported if line["record"] == "entry"}
    assert [r["id"] for r in entries["db-2"]["supersedes"]] == ["db-1"]
    assert entries["db-1"]["history"][-1]["detail"] == "db-2"
    # Lines in another order than the export's: the newer entry comes before the older.
    shuffled = [exported[0], entries["db-2"], entries["db-1"], *exported[3:]]
    assert import_(keyed, "moved", shuffled).status_code == 200
    moved = keyed.get("/v1/entries/db-1", params={"namespace": "moved"}, headers=AS_ADMIN)
    assert moved.json()["superseded_by"] == "db-2"
    found = keyed.post(
        "/v1/search", json={"namespace": "moved", "query": "ledger"}, headers=AS_ADMIN
    ).json()
    assert [hit["id"] for hit in found["results"]] == ["db-2"]
    again = import_(keyed, "moved", exported).json()["imported"]
    assert again["entries"] == 0 and again["unchanged"] == 2
    assert [line for line in export(keyed, "moved") if line["record"] == "entry"] == [
        line for line in exported if line["record"] == "entry"
    ]


def test_vectors_of_another_model_are_not_used_tiers_a_and_c_are_embedded_again(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    exported = export(keyed, "one", vectors="true")
    zeros = base64.b64encode(bytes(4 * exported[0]["dimension"])).decode()
    foreign = [{**exported[0], "model": "another-model"}]
    for line in exported[1:]:
        if line["record"] == "entry" and line["chunks"]:
            line = {**line, "chunks": [{**c, "vector": zeros} for c in line["chunks"]]}
        foreign.append(line)
    embedder = keyed_runtime.stores.embedder
    calls = len(embedder.calls)  # type: ignore[union-attr]
    report = import_(keyed, "copy", foreign, skip_bad_lines="true").json()["imported"]
    assert report["entries"] == 4 and report["embedded"] == 3  # a1, c1, c2; never e1
    assert len(embedder.calls) > calls  # type: ignore[union-attr]
    copied = export(keyed, "copy", vectors="true")
    assert [line for line in copied if line["record"] == "entry"] == [
        line for line in exported if line["record"] == "entry"
    ]  # the service's own vectors, not the file's


def test_a_copy_leaves_collections_to_their_namespace_and_gives_interactions_new_ids(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    exported = export(keyed, "one")
    refused = problem(import_(keyed, "copy", exported), 422)
    named = {e["field"]: e["message"] for e in refused["errors"]}
    assert "stays in namespace 'one'" in named["line 6"]  # the collection
    assert set(named) == {"line 6", "line 7"}  # and its file
    assert export(keyed, "copy")[0]["counts"]["entries"] == 0  # nothing partial
    skipped = import_(keyed, "copy", exported, skip_bad_lines="true").json()
    assert skipped["skipped_count"] == 2 and skipped["imported"]["entries"] == 4
    assert [line["line"] for line in skipped["skipped"]] == [6, 7]
    assert skipped["imported"]["interactions"] == 1 and skipped["imported"]["feedback"] == 1
    # The copy's interaction is its own (a new id), with the original's question and feedback.
    copied = {line["record"]: line for line in export(keyed, "copy")}
    original = {line["record"]: line for line in exported}
    assert copied["interaction"]["id"] != original["interaction"]["id"]
    assert copied["interaction"]["question"] == original["interaction"]["question"]
    assert copied["feedback"]["interaction_id"] == copied["interaction"]["id"]
    assert export(keyed, "one")[1:] == exported[1:]  # the original untouched
    again = import_(keyed, "copy", exported, skip_bad_lines="true").json()["imported"]
    assert again["interactions"] == 0 and again["feedback"] == 0 and again["entries"] == 0


def test_a_move_keeps_interactions_and_collections(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    exported = export(keyed, "one")
    erased = keyed.delete("/v1/namespaces/one", params={"confirm": "one"}, headers=AS_ADMIN)
    assert erased.status_code == 200, erased.text
    report = import_(keyed, "one", exported).json()["imported"]
    assert report["entries"] == 4 and report["collections"] == 1 and report["files"] == 1
    assert report["interactions"] == 1 and report["feedback"] == 1
    again = export(keyed, "one")
    assert again[1:] == exported[1:]  # all but the header's time of export


def test_bad_lines_are_named_by_number_and_nothing_is_written(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    lines = export(keyed, "one")
    lines[1]["tier"] = "Z"
    lines[2]["text"] = "   "
    lines[3]["id"] = lines[4]["id"]
    lines[4]["chunks"] = [{"text": "x", "vector": "not base64!"}]
    before = export(keyed, "one")
    text = body(lines).replace(json.dumps(lines[6]), "{not json")
    refused = problem(import_(keyed, "one", text), 422)
    fields = [e["field"] for e in refused["errors"]]
    # The first reference question names a1, whose line is bad.
    assert fields == ["line 2", "line 3", "line 5", "line 7", "line 10"]
    assert "'a1'" in refused["errors"][4]["message"]
    assert "tier" in refused["errors"][0]["message"]
    assert "blank" in refused["errors"][1]["message"]
    assert "appears twice" in refused["errors"][2]["message"]
    assert "base64" in refused["errors"][2]["message"]
    assert "JSON" in refused["errors"][3]["message"]
    assert export(keyed, "one")[1:] == before[1:]


def test_a_cut_or_foreign_file_is_refused_whole(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    lines = export(keyed, "one")
    cut = problem(import_(keyed, "fresh", lines[:-3], skip_bad_lines="true"), 422)
    assert "cut short" in cut["detail"]
    miscounted = lines[:3] + lines[-1:]
    assert "lines were lost" in problem(import_(keyed, "fresh", miscounted), 422)["detail"]
    newer = [{**lines[0], "version": wire.FORMAT_VERSION + 1}, *lines[1:]]
    assert "newer" in problem(import_(keyed, "fresh", newer), 422)["detail"]
    assert "header" in problem(import_(keyed, "fresh", lines[1:]), 422)["detail"]
    assert "header" in problem(import_(keyed, "fresh", "[1, 2]\n"), 422)["detail"]


def test_erasure_leaves_nothing_of_the_namespace_and_one_audit_record(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    fill(keyed, keyed_runtime, "two")
    # The stores as built, under the telemetry's instrumentation.
    vectors, keywords = keyed_runtime.stores.vectors.wrapped, keyed_runtime.stores.keywords.wrapped  # type: ignore[attr-defined]
    assert isinstance(vectors, FakeVectorStore) and isinstance(keywords, FakeKeywordStore)
    unconfirmed = problem(keyed.delete("/v1/namespaces/one", headers=AS_ADMIN), 422)
    assert unconfirmed["errors"][0]["field"] == "confirm"
    wrong = keyed.delete("/v1/namespaces/one", params={"confirm": "two"}, headers=AS_ADMIN)
    problem(wrong, 422)
    response = keyed.delete("/v1/namespaces/one", params={"confirm": "one"}, headers=AS_ADMIN)
    assert response.status_code == 200, response.text
    record = response.json()
    assert record["namespace"] == "one" and record["actor"] == "key:" + record["actor"][4:]
    assert record["counts"] == {
        "entries": 4,
        "history": 5,
        "quarantined": 0,
        "changes": record["counts"]["changes"],
        "collections": 1,
        "files": 1,
        "interactions": 1,
        "feedback": 1,
        "references": 2,
    }
    assert not any(k.startswith("one:") for k in keywords.keys | vectors.keys)
    assert any(k.startswith("two:") for k in keywords.keys)
    assert keyed.get("/v1/entries/a1?namespace=one", headers=AS_ADMIN).status_code == 404
    assert keyed.get("/v1/entries/a1/history?namespace=one", headers=AS_ADMIN).status_code == 404
    assert keyed_runtime.stores.interactions.get("q-one") is None
    assert export(keyed, "one")[0]["counts"] == {
        "entries": 0,
        "collections": 0,
        "files": 0,
        "interactions": 0,
        "feedback": 0,
        "references": 0,
    }
    assert export(keyed, "two")[0]["counts"]["entries"] == 4
    audit = keyed.get("/v1/admin/erasures", headers=AS_ADMIN).json()["erasures"]
    assert audit == [record]
    assert "tea" not in json.dumps(audit)


def test_a_namespace_that_holds_nothing_is_erased_with_a_record(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "two")
    response = keyed.delete("/v1/namespaces/none", params={"confirm": "none"}, headers=AS_ADMIN)
    assert response.status_code == 200, response.text
    assert set(response.json()["counts"].values()) == {0}
    audit = keyed.get("/v1/admin/erasures", headers=AS_ADMIN).json()["erasures"]
    assert [e["namespace"] for e in audit] == ["none"]
    assert export(keyed, "two")[0]["counts"]["entries"] == 4


def test_who_may_export_import_and_erase(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    fill(keyed, keyed_runtime, "one")
    agent_export = keyed.get("/v1/namespaces/one/export", headers=AS_AGENT)
    assert agent_export.status_code == 200  # an agent key of the namespace may read it
    problem(keyed.get("/v1/namespaces/two/export", headers=AS_AGENT), 403)
    assert keyed.get("/v1/namespaces/one/export").status_code == 401
    exported = agent_export.text
    as_agent = {**AS_AGENT, **NDJSON}
    problem(keyed.post("/v1/namespaces/one/import", content=exported, headers=as_agent), 403)
    problem(keyed.delete("/v1/namespaces/one", params={"confirm": "one"}, headers=AS_AGENT), 403)
    problem(keyed.get("/v1/admin/erasures", headers=AS_AGENT), 403)
    plain = {**AS_ADMIN, "Content-Type": "text/plain"}
    assert (
        keyed.post("/v1/namespaces/one/import", content=exported, headers=plain).status_code == 415
    )
    problem(keyed.get("/v1/namespaces/bad:name/export", headers=AS_ADMIN), 422)


def test_an_import_over_its_bound_is_413(runtime_for: Callable[..., Runtime]) -> None:
    for keyed in serve(runtime_for(api_keys=KEYS, max_import_bytes="100")):
        refused = keyed.post(
            "/v1/namespaces/one/import", content=b"x" * 1000, headers={**AS_ADMIN, **NDJSON}
        )
        problem(refused, 413)
