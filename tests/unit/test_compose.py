"""compose.yaml: a cluster of strata replicas over Postgres and Chroma behind nginx."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


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
    assert set(services) == {"postgres", "chroma", "strata-1", "strata-2", "lb"}
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
