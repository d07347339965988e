"""compose.yaml: a cluster of strata replicas over Postgres and Chroma behind nginx, with
Prometheus scraping the replicas and Grafana showing deploy/grafana's dashboard."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from service.domain.entries import Chunk, Entry, StoredEntry
from service.domain.memory.outcomes import Committed
from service.domain.model import JobRun
from service.domain.recall import UpstreamSnapshot
from service.domain.search.query import SearchOutcome
from service.domain.search.usage import ModelWork
from service.lib.breaker import BreakerSnapshot
from service.net.proxies import TrustedProxies
from service.telemetry.metrics import Metrics
from service.telemetry.readings import Readings

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "strata.json"


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return dict(compose["services"])


def interpolated(text: str) -> str:
    """``text`` as compose would pass it, each ``${NAME...}`` given the value ``NAME``."""
    return re.sub(r"\$\{(\w+)[^}]*\}", lambda m: m.group(1), text)


def replicas(services: dict[str, Any]) -> dict[str, Any]:
    return {name: s for name, s in services.items() if s.get("image", "").startswith("strata:")}


def test_postgres_chroma_two_replicas_and_a_load_balancer(services: dict[str, Any]) -> None:
    assert set(services) == {
        "postgres",
        "chroma",
        "strata-1",
        "strata-2",
        "lb",
        "prometheus",
        "grafana",
    }
    assert set(replicas(services)) == {"strata-1", "strata-2"}


def test_replicas_differ_only_in_their_name_and_data_volume(services: dict[str, Any]) -> None:
    found = replicas(services)
    envs = {name: dict(s["environment"]) for name, s in found.items()}
    assert {name: env.pop("STRATA_REPLICA_NAME") for name, env in envs.items()} == {
        name: name for name in found
    }
    first, *others = envs.values()
    assert all(env == first for env in others)
    builds = {(s["build"], s["image"]) for s in found.values()}
    assert len(builds) == 1
    volumes = [v for s in found.values() for v in s["volumes"]]
    assert all(v.endswith(":/data") for v in volumes) and len(set(volumes)) == len(found)
    for s in found.values():
        assert s["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "chroma": {"condition": "service_healthy"},
        }


def test_replicas_share_the_database_the_chroma_server_and_the_ui_secret(
    services: dict[str, Any],
) -> None:
    env = next(iter(replicas(services).values()))["environment"]
    database = urlsplit(interpolated(env["STRATA_DATABASE_URL"]))
    postgres = services["postgres"]["environment"]
    assert database.scheme == "postgresql" and database.hostname == "postgres"
    assert (database.username, database.password, database.path) == (
        postgres["POSTGRES_USER"],
        interpolated(postgres["POSTGRES_PASSWORD"]),
        f"/{postgres['POSTGRES_DB']}",
    )
    assert env["STRATA_CHROMA_URL"] == "http://chroma:8000"
    assert services["chroma"]["command"][-1] == "8000"
    assert env["STRATA_UI_SECRET"].startswith("${STRATA_UI_SECRET:?")
    assert env["STRATA_API_KEYS"].startswith("${STRATA_API_KEYS:?")


def test_the_load_balancer_sends_to_every_replica(services: dict[str, Any]) -> None:
    lb = services["lb"]
    [mount] = lb["volumes"]
    source, target, _ = mount.split(":")
    assert target == "/etc/nginx/nginx.conf"
    config = (ROOT / source).read_text()
    [upstream] = re.findall(r"upstream strata \{(.*?)\}", config, re.S)
    servers = set(re.findall(r"^\s*server\s+([\w.-]+:\d+)", upstream, re.M))
    assert servers == {f"{name}:8080" for name in replicas(services)}
    assert "proxy_pass http://strata;" in config
    assert lb["ports"] == ["8080:8080"] and re.search(r"listen 8080;", config)
    assert set(lb["depends_on"]) == set(replicas(services))


def test_the_replicas_hold_the_client_nginx_saw_not_nginx(
    services: dict[str, Any],
) -> None:
    """nginx names the client it saw, replacing whatever a client sent, and the replicas,
    which publish no port, trust the networks their peers come from to name it."""
    env = next(iter(replicas(services).values()))["environment"]
    proxies = TrustedProxies.parse(
        re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", env["STRATA_TRUSTED_PROXIES"])
    )
    assert proxies.trusts("172.18.0.5") and not proxies.trusts("203.0.113.9")
    assert not any("ports" in replica for replica in replicas(services).values())
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in config


def mounts(service: dict[str, Any]) -> dict[str, Path]:
    """A service's files and folders mounted from the repository, by where they go."""
    found = {}
    for mount in service["volumes"]:
        source, target, *_ = mount.split(":")
        if source.startswith("./"):
            found[target] = ROOT / source
    return found


def test_prometheus_and_grafana_run_pinned_official_images_on_loopback(
    services: dict[str, Any],
) -> None:
    images = {name: services[name]["image"] for name in ("prometheus", "grafana")}
    assert re.fullmatch(r"prom/prometheus:v\d+\.\d+\.\d+", images["prometheus"])
    assert re.fullmatch(r"grafana/grafana:\d+\.\d+\.\d+", images["grafana"])
    assert services["prometheus"]["ports"] == ["127.0.0.1:9090:9090"]
    assert services["grafana"]["ports"] == ["127.0.0.1:3000:3000"]
    for name in ("prometheus", "grafana"):
        assert all(path.exists() for path in mounts(services[name]).values()), name


def test_prometheus_scrapes_every_replica_with_the_metrics_token(
    services: dict[str, Any],
) -> None:
    prometheus = services["prometheus"]
    config = yaml.safe_load(mounts(prometheus)["/etc/prometheus/prometheus.yml"].read_text())
    [job] = [job for job in config["scrape_configs"] if job["job_name"] == "strata"]
    [targets] = job["static_configs"]
    # The replicas listen on 8080 (the Dockerfile's command), as nginx reaches them.
    assert set(targets["targets"]) == {f"{name}:8080" for name in replicas(services)}
    assert job.get("metrics_path", "/metrics") == "/metrics"
    assert job["authorization"]["type"] == "Bearer"
    # The token file is the compose secret made of the replicas' own STRATA_METRICS_TOKEN.
    [secret] = prometheus["secrets"]
    assert job["authorization"]["credentials_file"] == f"/run/secrets/{secret}"
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    variable = compose["secrets"][secret]["environment"]
    for replica in replicas(services).values():
        assert replica["environment"][variable].startswith(f"${{{variable}:?")
    assert set(prometheus["depends_on"]) == set(replicas(services))


def test_grafana_is_provisioned_with_prometheus_and_the_dashboard(
    services: dict[str, Any],
) -> None:
    grafana = services["grafana"]
    found = mounts(grafana)
    [datasource] = yaml.safe_load(
        (found["/etc/grafana/provisioning/datasources"] / "prometheus.yml").read_text()
    )["datasources"]
    assert datasource["type"] == "prometheus" and datasource["url"] == "http://prometheus:9090"
    assert services["prometheus"]["ports"][0].endswith(":9090")
    [provider] = yaml.safe_load(
        (found["/etc/grafana/provisioning/dashboards"] / "strata.yml").read_text()
    )["providers"]
    dashboards = provider["options"]["path"]
    assert found[dashboards] == DASHBOARD.parent
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{dashboards}/{DASHBOARD.name}"
    panels = json.loads(DASHBOARD.read_text())["panels"]
    uids = {t["datasource"]["uid"] for p in panels for t in p.get("targets", [])}
    assert uids == {datasource["uid"]}
    assert grafana["environment"]["GF_SECURITY_ADMIN_PASSWORD"].startswith(
        "${GRAFANA_ADMIN_PASSWORD:?"
    )


def test_the_dashboard_is_valid_json_with_unique_panel_ids() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    assert dashboard["uid"] == "strata"
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            refs = [t["refId"] for t in panel["targets"]]
            assert len(refs) == len(set(refs)), panel["title"]


# --- The dashboard's queries name only what strata (or Prometheus itself) exposes ---

PROMETHEUS_MADE = {"up"}
"""Series Prometheus adds for every target it scrapes."""
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset"}
KEYWORDS |= {"and", "or", "unless", "inf", "nan"}


def expressions() -> list[str]:
    """Every PromQL expression of the dashboard: its panels' and its variables' queries."""
    dashboard = json.loads(DASHBOARD.read_text())
    found = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        [(metric, _)] = re.findall(r"label_values\((\w+), *(\w+)\)", variable["query"]["query"])
        found.append(metric)
    return found


def metric_names(expression: str) -> set[str]:
    """The series an expression selects: what is left once strings, label matchers,
    ranges, groupings, Grafana's variables, functions and keywords are taken out."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', "", expression)
    bare = re.sub(r"\$\w+", "", bare)
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", bare)
    bare = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", bare)
    names = re.findall(r"(?<![\w.])([a-zA-Z_:][\w:]*)\b(?!\s*\()", bare)
    return {name for name in names if name not in KEYWORDS}


def stored(tier: str) -> StoredEntry:
    entry = Entry(f"{tier}1", "ns", tier, "text", 0.0)  # type: ignore[arg-type]
    vector = (0.1, 0.2) if entry.embedded else None
    return StoredEntry(entry, (Chunk(entry.key, 0, "text", vector),), 5)


def exposition() -> set[str]:
    """The sample names of a real exposition, after a little of every kind of work."""
    metrics = Metrics("r1", "0.1.0")
    metrics.request("/v1/search", "POST", 200, 0.01)
    metrics.searched(SearchOutcome([], "hybrid", ["model"], stages={"bm25": 0.01}), 0.02)
    metrics.searched(SearchOutcome([], "hybrid", [], relaxed=True), 0.02)
    metrics.searched(SearchOutcome([], "hybrid", [], cached=True), 0.0)
    metrics.retrieved_answer(True, 0.05)
    metrics.committed(Committed(writes=2, waits=(0.001,), stored=(stored("A"), stored("E"))))
    metrics.job_ran(JobRun(1, "archive_e_tier", "r1", 1.0, 2.0, {"archived": 3}))
    metrics.engine_call("ledger", "write", 0.001)
    metrics.engine_failed("ledger")
    metrics.watch(
        Readings(
            read_work=lambda: (ModelWork(1, 1, 4), {"ns": ModelWork(1, 2, 8)}),
            engine_up=lambda engine: True,
            lag=lambda: (0.5, 3),
            changes_applied=lambda: 10,
            leads=lambda: True,
            quarantined=lambda: 0,
            cached_queries=lambda: 1,
            upstream=lambda: UpstreamSnapshot("team", BreakerSnapshot("closed", 0, 1, 0)),
        )
    )
    body, _ = metrics.render()
    return {
        s.name for family in text_string_to_metric_families(body.decode()) for s in family.samples
    }


def test_every_dashboard_query_names_only_exposed_metrics() -> None:
    exposed = exposition() | PROMETHEUS_MADE
    for expression in expressions():
        names = metric_names(expression)
        assert names, expression
        assert names <= exposed, (expression, names - exposed)


def test_the_dashboard_covers_each_figure_an_operator_watches() -> None:
    named = set().union(*(metric_names(e) for e in expressions()))
    for figure in (
        "strata_search_duration_seconds_bucket",
        "strata_search_stage_duration_seconds_bucket",
        "strata_retrieve_duration_seconds_bucket",
        "strata_http_requests_total",
        "strata_search_degraded_total",
        "strata_replica_lag_seconds",
        "strata_replica_changes_behind",
        "strata_replica_leads_jobs",
        "strata_job_runs_total",
        "strata_job_last_success_timestamp_seconds",
        "strata_write_model_tokens_total",
        "strata_read_model_tokens_total",
        "strata_write_model_tokens_avoided_total",
        "strata_engine_up",
        "strata_engine_call_duration_seconds_bucket",
        "strata_group_commit_writes_bucket",
    ):
        assert figure in named, figure


def test_metric_names_are_found_past_matchers_functions_and_variables() -> None:
    expression = (
        'histogram_quantile(0.95, sum by (le, stage) (rate(strata_x_bucket{replica=~"$replica",'
        ' mode=~"a|b"}[$__rate_interval]))) / on (job) time() - max(up{job="strata"}) offset 5m'
    )
    assert metric_names(expression) == {"strata_x_bucket", "up"}


def test_promtool_accepts_the_scrape_configuration_and_the_dashboard_queries(
    tmp_path: Path,
) -> None:
    promtool = shutil.which("promtool")
    assert promtool, "install Debian's prometheus for promtool (scripts/system-packages does)"
    config = subprocess.run(
        [promtool, "check", "config", "--syntax-only", str(ROOT / "deploy" / "prometheus.yml")],
        capture_output=True,
        text=True,
    )
    assert config.returncode == 0, config.stdout + config.stderr
    # promtool parses PromQL in rule files: each query becomes a rule, with Grafana's
    # variables given values as Grafana would.
    values = {"$__rate_interval": "1m", "$__range": "1h", "$replica": ".*", "$mode": ".*"}
    rules = []
    for n, expression in enumerate(expressions()):
        for variable, value in sorted(values.items(), key=lambda kv: -len(kv[0])):
            expression = expression.replace(variable, value)
        assert "$" not in expression, expression
        rules.append({"record": f"dashboard:query_{n}", "expr": expression})
    (tmp_path / "rules.yml").write_text(yaml.safe_dump({"groups": [{"name": "d", "rules": rules}]}))
    checked = subprocess.run(
        [promtool, "check", "rules", str(tmp_path / "rules.yml")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
