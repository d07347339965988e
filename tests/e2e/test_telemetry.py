"""What operators see of a real server: its /metrics after real traffic, parsed as
Prometheus parses it; its spans, received over OTLP (HTTP/protobuf and gRPC) by a receiver
the test runs; request ids; JSON logs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import anyio
import httpx
import pytest
from mcp_types import RequestParamsMeta
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from service.testing.engines import free_port
from tests.e2e.test_mcp import over_http
from tests.e2e.test_server import Server

pytestmark = pytest.mark.slow

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
MCP_TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
ADMIN = "admin-key-0123456789"
AGENT = "agent-key-0123456789"
SCRAPER = "scrape-token-0123456789"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition by name and labels (the replica's left out)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = tuple(sorted((k, v) for k, v in s.labels.items() if k != "replica"))
            found[(s.name, labels)] = s.value
    return found


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("metrics") / "data", {"STRATA_LOG_FORMAT": "json"})
    yield running
    running.stop()


def test_metrics_count_what_was_sent(server: Server) -> None:
    events = [{"tier": "A", "text": f"decision {n}: store invoices in postgres"} for n in range(3)]
    events += [{"tier": "E", "text": f"step {n} of the invoices migration ran"} for n in range(5)]
    assert httpx.post(f"{server.url}/v1/events", json={"events": events}).status_code == 201
    before = samples(httpx.get(f"{server.url}/metrics").text)
    for query in ("invoices storage", "invoices storage", "migration step"):
        found = httpx.post(f"{server.url}/v1/search", json={"query": query, "mode": "hybrid"})
        assert found.status_code == 200
    assert httpx.post(f"{server.url}/v1/search", json={"query": ""}).status_code == 422
    answer = httpx.post(f"{server.url}/v1/retrieve", json={"question": "where do invoices go?"})
    assert answer.status_code == 200

    scraped = httpx.get(f"{server.url}/metrics")
    assert scraped.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    after = samples(scraped.text)
    assert value(after, "strata_entries_written_total", tier="A") == 3
    assert value(after, "strata_entries_written_total", tier="E") == 5
    assert value(after, "strata_chunks_embedded_total") == 3
    assert value(after, "strata_write_model_tokens_avoided_total") > 0
    search = {"route": "/v1/search", "method": "POST"}
    assert value(after, "strata_http_requests_total", status="200", **search) == 3
    assert value(after, "strata_http_requests_total", status="422", **search) == 1
    assert value(after, "strata_http_request_duration_seconds_count", status="200", **search) == 3
    # Three searches and the retrieve's two: the repeated query came from the cache.
    hits = value(after, "strata_query_cache_total", result="hit")
    misses = value(after, "strata_query_cache_total", result="miss")
    assert (hits, misses) == (1, 4)
    assert value(after, "strata_search_duration_seconds_count", mode="hybrid") == 4
    for stage in ("bm25", "embed", "vector", "fusion", "hydration", "ranking"):
        assert value(
            after, "strata_search_stage_duration_seconds_count", mode="hybrid", stage=stage
        )
    assert value(after, "strata_retrieve_duration_seconds_count") == 1
    assert (
        value(after, "strata_read_model_calls_total", kind="query")
        - value(before, "strata_read_model_calls_total", kind="query")
        == 3
    )  # two distinct queries and the retrieve's question
    assert value(after, "strata_engine_up", engine="ledger") == 1
    assert value(
        after, "strata_engine_call_duration_seconds_count", engine="model", operation="embed"
    )
    assert value(after, "process_resident_memory_bytes") > 0

    openmetrics = httpx.get(
        f"{server.url}/metrics", headers={"Accept": "application/openmetrics-text"}
    )
    assert openmetrics.headers["content-type"].startswith("application/openmetrics-text")
    assert openmetrics.text.rstrip().endswith("# EOF")


def test_every_response_carries_its_request_id_and_so_do_the_logs(server: Server) -> None:
    chosen = httpx.post(
        f"{server.url}/v1/search", json={"query": "x"}, headers={"X-Request-ID": "trace-me-42"}
    )
    assert chosen.headers["x-request-id"] == "trace-me-42"
    refused = httpx.post(f"{server.url}/v1/search", json={"quer": "x"})
    assert refused.status_code == 422
    assert refused.json()["request_id"] == refused.headers["x-request-id"]
    nowhere = httpx.get(f"{server.url}/v1/no-such-route", headers={"X-Request-ID": "lost-1"})
    assert nowhere.status_code == 404 and nowhere.json()["request_id"] == "lost-1"
    # An id a log line could be forged with is replaced, not echoed.
    forged = httpx.get(f"{server.url}/health", headers={"X-Request-ID": "a\tb" + "c" * 200})
    assert len(forged.headers["x-request-id"]) == 32

    lines = [
        json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")
    ]
    access = {line.get("request_id"): line for line in lines if line["logger"] == "strata.access"}
    assert access["trace-me-42"]["status"] == 200
    assert access["trace-me-42"]["route"] == "/v1/search"
    assert access[refused.headers["x-request-id"]]["status"] == 422


def test_labels_stay_bounded_whatever_the_namespaces(server: Server) -> None:
    def series() -> set[Any]:
        """What requests add; scheduled jobs run meanwhile too (one series set per job)."""
        found = samples(httpx.get(f"{server.url}/metrics").text)
        return {k for k in found if not k[0].startswith(("strata_job_", "strata_lifecycle_"))}

    def traffic(namespaces: range) -> None:
        with httpx.Client() as client:
            events = [
                {"tier": "E", "text": f"ran {n}", "namespace": f"tenant-{n}"} for n in namespaces
            ]
            for start in range(0, len(events), 100):
                written = client.post(
                    f"{server.url}/v1/events", json={"events": events[start : start + 100]}
                )
                assert written.status_code == 201
            for n in namespaces:
                ns = f"tenant-{n}"
                query = {"query": ns, "namespace": ns, "mode": "bm25"}
                client.post(f"{server.url}/v1/search", json=query)
                client.get(f"{server.url}/v1/entries/{ns}", params={"namespace": ns})

    traffic(range(20))
    known = series()
    traffic(range(20, 1000))
    text = httpx.get(f"{server.url}/metrics").text
    assert "tenant-" not in text
    # 980 more namespaces, the same kinds of requests: not one more series.
    assert series() == known


def test_metrics_take_an_admin_key_or_the_metrics_token(tmp_path: Path) -> None:
    keys = f"{ADMIN}=admin;{AGENT}=agent"
    env = {"STRATA_API_KEYS": keys, "STRATA_METRICS_TOKEN": SCRAPER}
    server = Server(tmp_path / "data", env)
    try:

        def scrape(token: str | None) -> int:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            return httpx.get(f"{server.url}/metrics", headers=headers).status_code

        assert scrape(None) == 401
        assert scrape("not-a-key") == 401
        assert scrape(AGENT) == 403
        assert scrape(ADMIN) == 200
        assert scrape(SCRAPER) == 200
        # The token reads the metrics and nothing else.
        search = httpx.post(
            f"{server.url}/v1/search",
            json={"query": "x"},
            headers={"Authorization": f"Bearer {SCRAPER}"},
        )
        assert search.status_code == 401
    finally:
        server.stop()


class OtlpHttpReceiver:
    """An OTLP/HTTP trace receiver: the spans of every export it was sent."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.received(request, self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.end_headers()
                self.wfile.write(trace_service_pb2.ExportTraceServiceResponse().SerializeToString())

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.paths: set[str] = set()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self, request: Any, path: str = "") -> None:
        self.paths.add(path)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                self.spans.extend(scope.spans)

    def wait_for(self, trace_id: str, *names: str) -> list[Any]:
        """The trace's spans once a span of each name has arrived: a span ends, and
        is exported, after its children, so they may come in separate batches."""
        for _ in range(100):
            found = [s for s in self.spans if s.trace_id.hex() == trace_id]
            if all(any(s.name.startswith(name) for s in found) for name in names):
                return found
            threading.Event().wait(0.1)
        raise AssertionError(f"no spans {names!r} of trace {trace_id} among {len(self.spans)}")


def attributes(span: Any) -> dict[str, Any]:
    out = {}
    for a in span.attributes:
        v = a.value
        out[a.key] = getattr(v, v.WhichOneof("value"))
    return out


def test_spans_of_a_search_continue_the_callers_trace_over_otlp_http(tmp_path: Path) -> None:
    receiver = OtlpHttpReceiver()
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_SERVICE_NAME": "strata-under-test",
    }
    server = Server(tmp_path / "data", env)
    try:
        events = [{"tier": "A", "text": "we keep invoices in postgres", "id": "adr-1"}]
        httpx.post(f"{server.url}/v1/events", json={"events": events})
        traceparent = f"00-{TRACE_ID}-{CALLER_SPAN}-01"
        found = httpx.post(
            f"{server.url}/v1/search",
            json={"query": "where are invoices kept?"},
            headers={"traceparent": traceparent},
        )
        assert found.json()["results"][0]["id"] == "adr-1"
        spans = receiver.wait_for(
            TRACE_ID,
            "search_memory",
            "POST /v1/search",
            "keyword index",
            "model embed",
            "vector store",
        )
        by_name = {s.name: s for s in spans}
        request = by_name["POST /v1/search"]
        assert request.parent_span_id.hex() == CALLER_SPAN
        use_case = by_name["search_memory default"]
        assert use_case.parent_span_id == request.span_id
        assert attributes(use_case)["gen_ai.operation.name"] == "search_memory"
        assert attributes(use_case)["gen_ai.memory.store.id"] == "default"
        assert attributes(use_case)["gen_ai.memory.record.count"] == 1
        assert "gen_ai.memory.query.text" not in attributes(use_case)  # content is opt-in
        engines = {s.name for s in spans if s.parent_span_id == use_case.span_id}
        assert {"keyword index search", "model embed", "vector store search"} <= engines
        assert receiver.paths == {"/v1/traces"}

        async def over_mcp() -> None:
            async with over_http(server.url) as client:
                carrier = {"traceparent": f"00-{MCP_TRACE_ID}-{CALLER_SPAN}-01"}
                meta = cast(RequestParamsMeta, carrier)
                result = await client.call_tool("search", {"query": "invoices"}, meta=meta)
                assert not result.is_error

        anyio.run(over_mcp)
        spans = receiver.wait_for(MCP_TRACE_ID, "search_memory", "tools/call search")
        names = {s.name for s in spans}
        assert "tools/call search" in names and "search_memory default" in names
    finally:
        server.stop()


class GrpcReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, receiver: OtlpHttpReceiver) -> None:
        self.receiver = receiver

    def Export(self, request: Any, context: Any) -> Any:
        self.receiver.received(request)
        return trace_service_pb2.ExportTraceServiceResponse()


def test_spans_also_go_over_otlp_grpc(tmp_path: Path) -> None:
    import grpc

    collected = OtlpHttpReceiver()  # only its list of spans is used
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    add_servicer = trace_service_pb2_grpc.add_TraceServiceServicer_to_server
    add_servicer(GrpcReceiver(collected), grpc_server)  # type: ignore[no-untyped-call]
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }
    server = Server(tmp_path / "data", env)
    try:
        events = [{"tier": "E", "text": "deploy 12 finished", "id": "run-12"}]
        written = httpx.post(
            f"{server.url}/v1/events",
            json={"events": events},
            headers={"traceparent": f"00-{TRACE_ID}-{CALLER_SPAN}-01"},
        )
        assert written.status_code == 201
        spans = collected.wait_for(TRACE_ID, "create_memory")
        assert any(attributes(s).get("gen_ai.operation.name") == "create_memory" for s in spans)
    finally:
        server.stop()
        grpc_server.stop(None)
