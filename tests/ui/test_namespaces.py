"""The namespaces page: what the tiers saved, once reads have embedded passages."""

from __future__ import annotations

import re

import pytest

from service.bootstrap import Runtime
from tests.api.conftest import fake_runtime
from tests.fakes import FakeClock, FakeFiles
from tests.http import AS_ADMIN, KEYS
from tests.ui.conftest import SECRET, Client
from tests.ui.test_pages import text_of, write


@pytest.fixture
def runtime(clock: FakeClock, files: FakeFiles) -> Runtime:
    """Searches measure the cosine of up to 3 tier E candidates by embedding them."""
    return fake_runtime(
        clock, files, api_keys=KEYS, ui_secret=SECRET, fusion="score", unembedded_candidates="3"
    )


def avoided(shown: str) -> list[float]:
    return [float(share) for share in re.findall(r"Embedding avoided:? (-?\d+\.\d)%", shown)]


def test_passage_tokens_embedded_by_searches_show_beside_the_embedding_avoided(
    admin: Client,
) -> None:
    write(
        admin,
        {"namespace": "one", "tier": "A", "text": "invoices are retried three times"},
        *[{"namespace": "one", "tier": "E", "text": f"GET /invoices {n} 503"} for n in range(4)],
    )
    before = text_of(admin.get("/ui/namespaces").text)
    assert "Embedded at read time 0 passage tokens since" in before
    assert "(read time: 0 passage tokens in 0 passages)" in before

    found = admin.post(
        "/v1/search", json={"query": "invoices 503", "namespace": "one"}, headers=AS_ADMIN
    )
    assert found.status_code == 200, found.text
    stats = admin.get("/v1/stats", headers=AS_ADMIN).json()
    tokens = stats["totals"]["tokens_read_time"]
    assert tokens > 0

    after = text_of(admin.get("/ui/namespaces").text)
    assert f"Embedded at read time {tokens} passage tokens since" in after
    assert f"(read time: {tokens} passage tokens in 3 passages)" in after
    # The totals' share and the namespace's own both fall by the tokens read time embedded.
    assert avoided(after)[0] < avoided(before)[0] and avoided(after)[1] < avoided(before)[1]
    assert avoided(after)[1] == pytest.approx(100 * stats["totals"]["embedding_avoided"], abs=0.1)


def test_the_service_page_and_the_namespaces_page_count_the_embedding_avoided_alike(
    admin: Client,
) -> None:
    """Everything stored was written by this process: the share the service page counts
    since it started is the share the namespaces page counts of what is stored."""
    write(
        admin,
        {"namespace": "one", "tier": "A", "text": "invoices are retried three times"},
        *[{"namespace": "one", "tier": "E", "text": f"GET /invoices {n} 503"} for n in range(4)],
    )
    found = admin.post(
        "/v1/search", json={"query": "invoices 503", "namespace": "one"}, headers=AS_ADMIN
    )
    assert found.status_code == 200, found.text
    assert admin.get("/v1/stats", headers=AS_ADMIN).json()["totals"]["tokens_read_time"] > 0
    namespaces = avoided(text_of(admin.get("/ui/namespaces").text))
    service = avoided(text_of(admin.get("/ui/service").text))
    assert len(service) == 1 and service[0] == namespaces[0] == namespaces[1]


def test_each_column_of_a_namespaces_table_is_summed_under_it(admin: Client) -> None:
    write(
        admin,
        {"namespace": "one", "tier": "A", "text": "we adopt NATS for the event bus"},
        {"namespace": "one", "tier": "C", "text": "today I finish the bus migration"},
        {"namespace": "one", "tier": "E", "text": "nats deploy finished"},
    )
    html = admin.get("/ui/namespaces").text
    table = re.search(r"<table>.*?</table>", html, re.S)
    assert table is not None
    head = re.findall(r"<th scope=\"col\"", table.group(0))
    foot = re.search(r"<tfoot><tr>(.*?)</tr></tfoot>", table.group(0))
    assert foot is not None
    cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", foot.group(1))
    assert "colspan" not in foot.group(1) and len(cells) == len(head)
    rows = re.findall(r"<tbody>(.*?)</tbody>", table.group(0), re.S)[0]
    body = [re.findall(r'<td class="num">(\d+)</td>', row) for row in rows.split("</tr>") if row]
    sums = [str(sum(int(row[n]) for row in body if row)) for n in range(len(head) - 1)]
    assert cells[1:] == sums and cells[1:3] == ["3", "0"]  # active, archived
