"""The `strata` command against the real server process."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.domain.answers.confidence import FEATURES, Calibration
from service.domain.search.learned import FEATURES as RANKING_FEATURES
from service.domain.search.learned import RankingModel
from service.testing.engines import free_port
from tests.e2e.test_server import Server


def strata(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STRATA_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_cli_records_searches_promotes_and_reports(tmp_path: Path) -> None:
    # No scheduled turns: the run counted below is the one asked for, whatever the hour.
    server = Server(tmp_path / "data", {"STRATA_JOBS": "off"})
    try:
        url = server.url
        added = strata(
            url,
            "add",
            "Standup: we will retire the legacy queue",
            "--tier",
            "C",
            "--id",
            "q1",
            "--speaker",
            "bob",
            "--tag",
            "queue",
        )
        assert added.returncode == 0, added.stderr
        assert added.stdout.strip() == "q1"
        text = strata(url, "search", "legacy queue")
        assert text.returncode == 0 and "q1" in text.stdout
        rows = list(csv.DictReader(io.StringIO(strata(url, "search", "queue", "--csv").stdout)))
        assert [r["id"] for r in rows] == ["q1"]
        md = strata(url, "search", "queue", "--md", "--tier", "C").stdout
        assert md.startswith("| score | tier | id | snippet |") and "| C | q1 |" in md
        found = json.loads(strata(url, "search", "queue", "--json", "-n", "1").stdout)
        assert found["results"][0]["speaker"] == "bob"

        assert json.loads(strata(url, "promote", "q1").stdout)["promoted"] == ["q1"]
        assert json.loads(strata(url, "get", "q1").stdout)["tier"] == "A"
        history = json.loads(strata(url, "get", "q1", "--history").stdout)["history"]
        assert [h["action"] for h in history] == ["created", "promoted"]
        jobs = json.loads(strata(url, "jobs").stdout)["jobs"]
        assert len(jobs) == 7
        recorded = strata(url, "reference", "what queue do we retire?", "--answer", "q1")
        assert recorded.returncode == 0 and recorded.stdout.strip(), recorded.stderr
        assert strata(url, "reference", "who won the match?", "--nothing").returncode == 0
        neither = strata(url, "reference", "what else?")
        assert neither.returncode == 1 and "422" in neither.stderr, neither.stderr
        swept = strata(url, "sweep").stdout
        assert "2 references (1 answered by entries)" in swept, swept
        assert "in force: shipped" in swept, swept
        assert json.loads(strata(url, "sweep", "--format", "json").stdout)["kept"] is False
        whole = strata(url, "sweep", "--deployment").stdout
        assert whole.startswith("the deployment: 2 references (1 answered by entries)"), whole
        listed = strata(url, "calibration", "--deployment", "--rollback", "0").stdout
        assert listed.startswith("the deployment: shipped in force"), listed
        shown = strata(url, "calibration", "--rollback", "0").stdout
        assert "shipped in force (threshold 0.73, floor 0.002)" in shown, shown
        run = json.loads(strata(url, "jobs", "--run", "expire_c_tier").stdout)
        assert run["runs"] == 1
        status = json.loads(strata(url, "status").stdout)
        assert status["health"]["model"] == "all-MiniLM-L6-v2"
        assert status["stats"]["totals"]["entries"] == 1
        rebuilt = strata(url, "rebuild")
        assert rebuilt.returncode == 0 and json.loads(rebuilt.stdout)["state"] == "done"

        refused = strata(url, "get", "nope")
        assert refused.returncode == 1 and "404" in refused.stderr
        bad = strata(url, "search", "x", "-n", "500")
        assert bad.returncode == 1 and "limit" in bad.stderr
    finally:
        server.stop()


def test_cli_exit_codes_without_a_service() -> None:
    unreachable = strata(f"http://127.0.0.1:{free_port()}", "status")
    assert unreachable.returncode == 3 and "cannot reach" in unreachable.stderr
    assert strata("http://127.0.0.1:1", "search").returncode == 2
    assert strata("http://127.0.0.1:1", "--help").returncode == 0


def test_cli_collections_and_documents(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploys.md").write_text("# Deploys\n\nWe deploy on Tuesdays only.\n")
    server = Server(tmp_path / "data", {"STRATA_COLLECTION_ROOTS": str(notes)})
    try:
        url = server.url
        everything = strata(url, "collection", "add", "everything", "/")
        outside = (
            f"/ is outside the folders collections may read (STRATA_COLLECTION_ROOTS): {notes}"
        )
        assert everything.returncode == 1
        assert f"strata: 422 Invalid input: path: {outside}\n  path: {outside}\n" in (
            everything.stderr
        )
        added = strata(url, "collection", "add", "notes", str(notes))
        assert added.returncode == 0, added.stderr
        assert json.loads(added.stdout)["added"] == 1
        assert "notes\t1 files" in strata(url, "collection", "list").stdout
        hit = json.loads(strata(url, "search", "when do we deploy", "--json").stdout)["results"][0]
        assert hit["file"] == "notes/deploys.md" and hit["lines"] == "1-3"
        assert "notes/deploys.md:1-3" in strata(url, "search", "when do we deploy").stdout
        line = strata(url, "get", "notes/deploys.md:3", "-l", "1")
        assert line.stdout.strip() == "3| We deploy on Tuesdays only."
        assert "==> notes/deploys.md <==" in strata(url, "multi-get", "notes/*.md").stdout
        (notes / "deploys.md").write_text("# Deploys\n\nWe deploy every day.\n")
        (notes / "latin1.md").write_bytes(b"\xe9t\xe9\n")
        update = strata(url, "collection", "update", "notes")
        assert update.returncode == 0, update.stderr
        assert json.loads(update.stdout)["changed"] == 1
        assert "skipped notes/latin1.md: not UTF-8 text (byte 0)\n" in update.stderr
        escape = strata(url, "get", "notes/../secret.md")
        assert escape.returncode == 1 and "403" in escape.stderr
        assert strata(url, "collection", "remove", "notes").returncode == 0
    finally:
        server.stop()


def test_cli_retrieve_gives_the_verdict_and_patterns(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    try:
        url = server.url
        for args in (
            ["We decided to keep invoices in PostgreSQL.", "--id", "inv"],
            ["Weigh transactions first when choosing a datastore.", "--id", "how"],
        ):
            assert strata(url, "add", *args).returncode == 0
        answer = strata(url, "retrieve", "where do we keep invoices?", "--asker", "cli")
        assert answer.returncode == 0, answer.stderr
        first = answer.stdout.splitlines()[0]
        assert "strong match" in first and "interaction" in first
        assert "inv" in answer.stdout
        found = json.loads(strata(url, "retrieve", "invoices", "--json", "-n", "1").stdout)
        assert [e["id"] for e in found["entries"]] == ["inv"]
        assert set(found) >= {"strong_match", "best_relevance", "reasoning_patterns"}
    finally:
        server.stop()


def test_cli_context_prints_the_cited_block_within_its_budget(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    try:
        url = server.url
        for args in (
            ["We decided to keep invoices in MySQL.", "--id", "inv-1"],
            ["We moved the invoices to PostgreSQL.", "--id", "inv-2", "--supersedes", "inv-1"],
        ):
            assert strata(url, "add", *args, "--speaker", "alice").returncode == 0
        made = strata(url, "context", "where do we keep invoices?", "--max-tokens", "48")
        assert made.returncode == 0, made.stderr
        heading, first, *_ = made.stdout.splitlines()
        assert re.fullmatch(r"### Decisions and facts \(\d{4}\)", heading)
        assert first.startswith("- [inv-2 ") and first.endswith(
            " alice] We moved the invoices to PostgreSQL. (replaces inv-1)"
        )
        assert "MySQL" not in made.stdout
        assert "/48 tokens; interaction " in made.stderr
        plain = strata(url, "context", "where do we keep invoices?", "--text")
        assert re.match(r"Decisions and facts \(\d{4}\):\n\[inv-2 ", plain.stdout)
        found = json.loads(strata(url, "context", "invoices", "--json", "-t", "32").stdout)
        assert found["tokens"] <= found["max_tokens"] == 32
        assert [e["id"] for e in found["entries"]] == ["inv-2"]
        nothing = strata(url, "context", "Who won the football world cup in 1998?")
        assert nothing.stdout == "### Memory\nNothing relevant in memory.\n"
        unfloored = ["--min-score", "0", "--json"]
        weak = json.loads(
            strata(url, "context", "Who won the football world cup?", *unfloored).stdout
        )
        assert {e["id"] for e in weak["entries"]} >= {"inv-2"}
        refused = strata(url, "context", "invoices", "--max-tokens", "8")
        assert refused.returncode != 0 and "max_tokens" in refused.stderr
        # A budget too small for the best entry's citation: said, not an empty block.
        tea = ["--namespace", "tea"]
        assert strata(url, "add", "Alice prefers tea to coffee.", *tea).returncode == 0
        tight = strata(url, "context", "what does Alice drink?", "-t", "32", *tea)
        assert tight.returncode == 0, tight.stderr
        assert tight.stdout == ""
        assert "no relevant entry fits in 32 tokens" in tight.stderr
        assert "give a larger --max-tokens" in tight.stderr
    finally:
        server.stop()


def test_cli_says_when_nothing_in_memory_is_relevant(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    try:
        url = server.url
        assert strata(url, "add", "Alice is allergic to peanuts.").returncode == 0
        question = "Who won the football world cup in 1998?"
        nothing = strata(url, "search", question)
        assert nothing.returncode == 0, nothing.stderr
        assert nothing.stdout == (
            "nothing relevant in memory (1 hit below the relevance floor; "
            "--min-score 0 shows them)\n"
        )
        shown = strata(url, "search", question, "--min-score", "0")
        assert "Alice is allergic to peanuts." in shown.stdout
        misspelt = strata(url, "search", "peanuts", "--namespace", "alise")
        assert misspelt.returncode == 0, misspelt.stderr
        assert misspelt.stdout == "nothing relevant in memory\n"
        assert "namespace 'alise' holds no entries; namespaces: default" in misspelt.stderr
        answer = strata(url, "retrieve", question)
        assert answer.returncode == 0, answer.stderr
        verdict, *rest = answer.stdout.splitlines()
        assert verdict.startswith("no strong match (confidence 0.00,")
        assert rest == ["nothing relevant in memory"]
    finally:
        server.stop()


def test_cli_records_a_revision_and_searches_as_of_a_moment(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", {"STRATA_JOBS": "off"})
    try:
        url = server.url
        first = ["add", "Ledger decision: keep the ledger in SQLite.", "--id", "v1"]
        assert strata(url, *first).returncode == 0
        again = strata(url, "add", "ledger decision: keep the ledger in sqlite.")
        assert again.stdout.strip() == "v1" and "duplicate_of" in again.stderr
        between = datetime.now(UTC).isoformat()
        revised = strata(
            url,
            "add",
            "Ledger decision: keep the ledger in PostgreSQL, change log partitioned by day.",
            "--id",
            "v2",
            "--supersedes",
            "v1",
            "--type",
            "decision",
        )
        assert revised.returncode == 0, revised.stderr
        assert "v2: supersedes v1" in revised.stderr
        current = strata(url, "search", "ledger decision", "--json")
        assert [r["id"] for r in json.loads(current.stdout)["results"]] == ["v2"]
        both = strata(url, "search", "ledger decision", "--include-superseded").stdout
        assert "v1 (superseded by v2)" in both
        then = strata(url, "search", "ledger decision", "--as-of", between, "--json")
        assert [r["id"] for r in json.loads(then.stdout)["results"]] == ["v1"]
        answer = strata(url, "retrieve", "what is the ledger decision?")
        assert "replaces v1" in answer.stdout
        shown = strata(url, "search", "what did we decide for the ledger?", "--json")
        assert json.loads(shown.stdout)["results"][0]["type"] == "decision"
        unknown = strata(url, "add", "x", "--supersedes", "ghost")
        assert unknown.returncode == 1 and "events[0].supersedes[0]" in unknown.stderr
    finally:
        server.stop()


def beir_set(folder: Path, docs: dict[str, str], questions: dict[str, tuple[str, str]]) -> Path:
    """A BEIR-format set of ``docs`` and ``questions`` (text, the id of its relevant doc)."""
    folder.mkdir()
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n" for i, t in docs.items())
    )
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": i, "text": q}) + "\n" for i, (q, _) in questions.items())
    )
    (folder / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{i}\t{d}\t1\n" for i, (_, d) in questions.items())
    )
    return folder


def test_cli_calibrate_fits_the_confidence_on_a_beir_set(tmp_path: Path) -> None:
    docs = {
        "d1": "The billing service stores invoices in PostgreSQL.",
        "d2": "Deploys go out every Tuesday after the release review.",
        "d3": "The on-call rotation changes every Monday morning.",
        "d4": "Search runs on Tantivy with an English stemmer.",
    }
    questions = {
        "q1": ("Where are invoices stored?", "d1"),
        "q2": ("When do deploys go out?", "d2"),
        "q3": ("Who painted the Mona Lisa?", "d9"),
    }
    dataset = beir_set(tmp_path / "set", docs, questions)
    env = {**os.environ, "STRATA_RERANKER_MODEL": ""}
    written, ranked = tmp_path / "calibration.json", tmp_path / "ranking.json"
    command = [sys.executable, "-m", "service", "calibrate", "--dataset", str(dataset)]
    done = subprocess.run(
        [*command, "--json", "--output", str(written), "--ranking-output", str(ranked)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    # q3's relevant document is not in the corpus: it can never be answered.
    fitness = found["sets"]["set"]
    assert (fitness["questions"], fitness["answered"]) == (3, 2)
    assert len(fitness["bins"]) == 3 and 0 <= fitness["auc"] <= 1
    calibration = Calibration.load(written)
    assert calibration.threshold == found["calibration"]["threshold"]
    assert set(calibration.weights) <= set(FEATURES)
    # The ranking model is fitted first, on each question's candidates, and searched with.
    ranking = RankingModel.load(ranked)
    assert set(ranking.weights) == set(RANKING_FEATURES)
    assert found["ranking"]["sets"]["set"]["questions"] == 3
    assert found["ranking"]["scale"] == ranking.scale
    unknown = subprocess.run(
        [*command, "--weight", "elsewhere=2"], capture_output=True, text=True, timeout=60
    )
    assert unknown.returncode == 2 and "not one of the sets" in unknown.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "service", "calibrate", "--dataset", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "BEIR" in missing.stderr


def test_cli_calibrate_leaves_each_set_out_and_asks_in_small_namespaces(tmp_path: Path) -> None:
    """Two sets: each is scored by the models fitted on the other alone too, and questions
    are also asked in small namespaces of their own; the sets' figures stay their own
    namespaces'."""
    ops = beir_set(
        tmp_path / "ops",
        {
            "o1": "The billing service stores invoices in PostgreSQL.",
            "o2": "Deploys go out every Tuesday after the release review.",
            "o3": "The on-call rotation changes every Monday morning.",
        },
        {"q1": ("Where are invoices stored?", "o1"), "q2": ("When do deploys go out?", "o2")},
    )
    food = beir_set(
        tmp_path / "food",
        {
            "f1": "Alice is allergic to peanuts, so never suggest satay.",
            "f2": "Bob prefers tea to coffee in the morning.",
            "f3": "The team lunch is on Fridays at the noodle bar.",
        },
        {"q1": ("What is Alice allergic to?", "f1"), "q2": ("When is the team lunch?", "f3")},
    )
    sets = ["--dataset", str(ops), "--dataset", str(food)]
    done = subprocess.run(
        [sys.executable, "-m", "service", "calibrate", "--json", *sets, "--small", "2", "-l"],
        capture_output=True,
        text=True,
        env={**os.environ, "STRATA_RERANKER_MODEL": ""},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert [f["name"] for f in found["left_out"]] == ["ops", "food"]
    for left in found["left_out"]:
        assert left["ranked_without"]["questions"] == 2
        assert left["confidence_without"]["questions"] == 2
    assert found["sets"]["ops"]["questions"] == 2
    assert found["ranking"]["sets"]["food"]["questions"] == 2


@pytest.mark.parametrize("keys", ["agent-key-0123456789=agent:", "agent-key-0123456789=agent: ,"])
def test_serve_refuses_a_key_with_an_empty_namespace_list(tmp_path: Path, keys: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--data-dir", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        env={**os.environ, "STRATA_API_KEYS": keys},
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "empty namespace list" in done.stderr
    assert not (tmp_path / "data").exists()


def test_cli_exports_imports_and_erases_a_namespace(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", {"STRATA_JOBS": "off"})
    try:
        url = server.url
        for text, tier in (("We chose Postgres for billing", "A"), ("deploy ok", "E")):
            added = strata(url, "add", text, "--tier", tier, "--namespace", "src")
            assert added.returncode == 0, added.stderr
        file = tmp_path / "src.jsonl"
        exported = strata(url, "export", "--namespace", "src", "--vectors", "-o", str(file))
        assert exported.returncode == 0, exported.stderr
        # The namespace given first, as before --namespace, still works.
        streamed = strata(url, "export", "src", "--vectors").stdout.splitlines()
        on_disk = file.read_text().splitlines()
        assert len(on_disk) == 4 and streamed[1:] == on_disk[1:]
        for unnamed in (["export"], ["export", "src", "--namespace", "other"]):
            usage = strata(url, *unnamed)
            assert usage.returncode == 2 and "--namespace NAME" in usage.stderr
        imported = strata(url, "import", "--namespace", "copy", str(file))
        assert imported.returncode == 0, imported.stderr
        report = json.loads(imported.stdout)
        assert report["imported"]["entries"] == 2 and report["source"] == "src"
        found = json.loads(strata(url, "search", "billing", "--json", "--namespace", "copy").stdout)
        assert found["results"][0]["text"] == "We chose Postgres for billing"

        cut = tmp_path / "cut.jsonl"
        cut.write_text("\n".join(on_disk[:2]) + "\n")
        refused = strata(url, "import", "other", str(cut))
        assert refused.returncode == 1 and "cut short" in refused.stderr

        unconfirmed = strata(url, "erase", "src")
        assert unconfirmed.returncode == 2 and "--confirm src" in unconfirmed.stderr
        erased = strata(url, "erase", "--namespace", "src", "--confirm", "src")
        assert erased.returncode == 0, erased.stderr
        assert json.loads(erased.stdout)["counts"]["entries"] == 2
        empty = strata(url, "export", "src").stdout.splitlines()
        assert json.loads(empty[0])["counts"]["entries"] == 0 and len(empty) == 2
    finally:
        server.stop()
