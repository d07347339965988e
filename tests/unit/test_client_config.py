"""Where the client finds the service URL and API key."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.client import DEFAULT_URL, connection
from service.errors import ConfigError


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
