"""A question worded as a replaced decision was gets the decision that replaced it, over the
real model, Tantivy and Chroma, on SQLite and Postgres: the superseded entry is never shown,
and the learned fusion's ``replaces`` feature carries its match to its successor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.domain.search.learned import SHIPPED
from service.settings import Settings
from tests.http import ids, search, write
from tests.integration.test_intent import OpenStores, client_for, settings

__all__ = ["settings"]

NAMESPACE = "forms"
DECISIONS: list[dict[str, Any]] = [
    {
        "id": "adr-2",
        "text": "ADR 2: Send completed form submissions to processing teams by email "
        "through GOV.UK Notify.",
        "timestamp": "2022-03-01T10:00:00Z",
    },
    {
        "id": "adr-28",
        "text": "ADR 28: Use GOV.UK Notify for emails sent to users for simple "
        "notifications, such as confirmation emails and password resets.",
        "timestamp": "2024-03-28T10:00:00Z",
    },
    {
        "id": "adr-31",
        "text": "ADR 31: Store uploaded files for form submissions in an S3 bucket per "
        "environment.",
        "timestamp": "2024-06-01T10:00:00Z",
    },
]
REPLACEMENT = {
    "id": "adr-19",
    "text": "ADR 19: Use Amazon SES. Processing teams receive each submission from Amazon "
    "SES, which allows larger attachments and our own sending domain.",
    "timestamp": "2023-03-27T10:00:00Z",
    "supersedes": ["adr-2"],
}
ASKED = "What did we decide about how processing teams get form submissions through GOV.UK Notify?"


def decision(event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "tier": "A", "type": "decision", "namespace": NAMESPACE}


def test_the_decision_that_replaced_the_one_asked_about_comes_first(
    settings: Settings, open_stores: OpenStores
) -> None:
    for client in client_for(open_stores(settings)):
        write(client, *map(decision, DECISIONS))
        before = search(client, ASKED, namespace=NAMESPACE)
        assert ids(before)[0] == "adr-2"
        write(client, decision(REPLACEMENT))
        found = search(client, ASKED, namespace=NAMESPACE, explain=True)
        assert "adr-2" not in ids(found)
        assert ids(found)[0] == "adr-19", ids(found)
        parts = found["results"][0]["explain"]
        assert parts["model.replaces"]["score"] > 0
        assert all("model.replaces" not in r["explain"] for r in found["results"][1:])


def test_without_the_replaces_weight_the_replacement_leads_by_less(
    settings: Settings, open_stores: OpenStores, tmp_path: Path
) -> None:
    """The same model without its ``replaces`` weight: the replacement's lead over the other
    decision on the same subject is the weight's doing, in part (in a namespace this small,
    its own words carry it first either way)."""
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    del raw["weights"]["replaces"]
    plain = tmp_path / "without-replaces.json"
    plain.write_text(json.dumps(raw), encoding="utf-8")
    leads: list[float] = []
    for model in (settings, settings.replace(ranking_model=str(plain))):
        # A namespace each: on Postgres both share the database.
        namespace = f"{NAMESPACE}-{len(leads)}"
        for client in client_for(open_stores(model.replace(data_dir=tmp_path / namespace))):
            write(client, *({**decision(e), "namespace": namespace} for e in DECISIONS))
            write(client, {**decision(REPLACEMENT), "namespace": namespace})
            found = search(client, ASKED, namespace=namespace, explain=True, min_score=0)
            scores = {r["id"]: r["score"] for r in found["results"]}
            leads.append(scores["adr-19"] - scores["adr-28"])
            if model is not settings:
                assert all("model.replaces" not in r["explain"] for r in found["results"])
    assert leads[0] > leads[1], leads
