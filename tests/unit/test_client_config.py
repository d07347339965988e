"""Where the client finds the service URL and API key, and what it makes of the answers."""

from __future__ import annotations

from pathlib import Path

import httpx
import msgspec
import pytest

from schemas import wire
from service.errors import ConfigError
from service.remote.client import DEFAULT_URL, StrataClient, StrataClientError, connection


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('url = "http://10.0.0.5:8080"\napi_key = "from-file"\n')
    return path


def test_arguments_win_over_variables_and_file(config: Path) -> None:
    environ = {"STRATA_CONFIG": str(config), "STRATA_URL": "http://env", "STRATA_API_KEY": "env"}
    assert connection("http://arg", "arg", environ) == ("http://arg", "arg")
    assert connection(None, None, environ) == ("http://env", "env")


def test_the_config_file_fills_what_is_not_set(config: Path) -> None:
    environ = {"STRATA_CONFIG": str(config)}
    assert connection(None, None, environ) == ("http://10.0.0.5:8080", "from-file")
    with_url = {**environ, "STRATA_URL": "http://env"}
    assert connection(None, None, with_url) == ("http://env", "from-file")


def test_without_a_file_the_loopback_default_and_no_key(tmp_path: Path) -> None:
    environ = {"STRATA_CONFIG": str(tmp_path / "missing.toml")}
    assert connection(None, None, environ) == (DEFAULT_URL, None)


def test_a_broken_file_is_a_config_error(tmp_path: Path) -> None:
    broken = tmp_path / "config.toml"
    broken.write_text("url = [unclosed")
    with pytest.raises(ConfigError, match=r"config\.toml"):
        connection(None, None, {"STRATA_CONFIG": str(broken)})


def answering(status: int, body: bytes) -> StrataClient:
    """A client of a service that gives every request this answer."""
    reply = httpx.MockTransport(lambda _: httpx.Response(status, content=body))
    return StrataClient("http://strata.test", api_key="k", transport=reply)


def test_answers_come_back_as_wire_types() -> None:
    sent = wire.PromoteResponse("default", ["q1"])
    with answering(200, msgspec.json.encode(sent)) as client:
        assert client.promote(["q1"]) == sent


def test_an_error_answer_raises_with_its_problem() -> None:
    problem = {"type": "about:blank", "title": "Not found", "status": 404, "detail": "no q9"}
    client = answering(404, msgspec.json.encode(problem))
    with client, pytest.raises(StrataClientError, match="404 Not found: no q9") as raised:
        client.get_entry("q9")
    assert raised.value.status == 404 and raised.value.problem == problem
    client = answering(502, b"<html>bad gateway</html>")
    with client, pytest.raises(StrataClientError, match="502 Bad Gateway") as raised:
        client.health()
    assert raised.value.problem["detail"] == "<html>bad gateway</html>"
