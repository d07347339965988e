"""Settings from STRATA_* variables and CLI overrides."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from service.errors import ConfigError
from service.settings import Settings


def test_empty_environment_gives_the_defaults() -> None:
    assert Settings.from_env({}) == Settings()


def test_variables_are_read_with_the_strata_prefix() -> None:
    settings = Settings.from_env(
        {
            "STRATA_HOST": "0.0.0.0",
            "STRATA_PORT": "9000",
            "STRATA_DATA_DIR": "/var/lib/strata",
            "STRATA_C_TTL_DAYS": "2.5",
            "STRATA_RRF_K": "10",
            "STRATA_API_KEYS": "k=admin",
            "STRATA_CHUNK_WORDS": "200",
            "STRATA_CHUNK_OVERLAP": "40",
            "HOST": "ignored",
            "PORT": "1",
        }
    )
    assert settings.host == "0.0.0.0"
    assert settings.port == 9000
    assert settings.data_dir == Path("/var/lib/strata")
    assert settings.c_ttl_days == 2.5
    assert settings.rrf_k == 10.0
    assert settings.api_keys == "k=admin"
    assert (settings.chunk_words, settings.chunk_overlap) == (200, 40)


def test_every_field_has_its_variable() -> None:
    samples = {int: "7", float: "0.5", Path: "/tmp/x", str: "text"}
    for f in dataclasses.fields(Settings):
        if f.name in ("ttl_by_chain_type", "tier_weights", "chunk_words", "chunk_overlap"):
            continue  # covered below: a mapping, and a pair checked together
        default = getattr(Settings(), f.name)
        kind = type(default)
        kind = Path if issubclass(kind, Path) else kind
        if isinstance(default, dict):
            changed = {name: weight / 2 for name, weight in default.items()}
            settings = Settings.from_env({f"STRATA_{f.name.upper()}": json.dumps(changed)})
            assert getattr(settings, f.name) == changed, f.name
            continue
        # A switch accepts only its own words: set it to the other one.
        switches = {"on": "off", "off": "on", "score": "rrf", "onnx-int8": "torch", "onnx": "torch"}
        sample = switches.get(default, samples[kind])
        settings = Settings.from_env({f"STRATA_{f.name.upper()}": sample})
        assert getattr(settings, f.name) == kind(sample), f.name


def test_empty_variable_counts_as_unset() -> None:
    assert Settings.from_env({"STRATA_PORT": "", "STRATA_HOST": ""}) == Settings()


def test_empty_reranker_model_turns_reranking_off() -> None:
    assert Settings.from_env({"STRATA_RERANKER_MODEL": ""}).reranker_model == ""


def test_overrides_win_over_the_environment() -> None:
    settings = Settings.from_env(
        {"STRATA_PORT": "9000", "STRATA_HOST": "0.0.0.0"}, port=7000, data_dir="/srv/data"
    )
    assert settings.port == 7000
    assert settings.host == "0.0.0.0"
    assert settings.data_dir == Path("/srv/data")


def test_none_overrides_are_ignored() -> None:
    settings = Settings.from_env({"STRATA_PORT": "9000"}, port=None, host=None)
    assert settings.port == 9000
    assert settings.host == "127.0.0.1"


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("STRATA_PORT", "eighty"),
        ("STRATA_PORT", "80.5"),
        ("STRATA_MAX_BATCH", "1e3"),
        ("STRATA_RRF_K", "sixty"),
        ("STRATA_C_TTL_DAYS", "7d"),
    ],
)
def test_bad_number_names_the_variable(name: str, raw: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: raw})


def test_ttl_by_chain_type_is_a_json_object_of_days() -> None:
    settings = Settings.from_env({"STRATA_TTL_BY_CHAIN_TYPE": '{"standup": 2, "retro": "0.5"}'})
    assert settings.ttl_by_chain_type == {"standup": 2.0, "retro": 0.5}


@pytest.mark.parametrize(
    "raw",
    [
        '["standup", 2]',
        "{standup: 2}",
        '{"standup": "two"}',
        '{"standup": null}',
        '{"standup": [2]}',
    ],
)
def test_bad_ttl_by_chain_type_names_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="STRATA_TTL_BY_CHAIN_TYPE"):
        Settings.from_env({"STRATA_TTL_BY_CHAIN_TYPE": raw})


@pytest.mark.parametrize(
    ("environ", "variable"),
    [
        ({"STRATA_MAX_BATCH": "0"}, "STRATA_MAX_BATCH"),
        ({"STRATA_CHUNK_WORDS": "30", "STRATA_CHUNK_OVERLAP": "30"}, "STRATA_CHUNK_OVERLAP"),
        ({"STRATA_RRF_K": "0"}, "STRATA_RRF_K"),
        ({"STRATA_BM25_WEIGHT": "-1"}, "weights"),
        ({"STRATA_VECTOR_WEIGHT": "-0.1"}, "weights"),
        ({"STRATA_JOBS": "yes"}, "STRATA_JOBS"),
        ({"STRATA_E_ARCHIVE_DAYS": "-1"}, "STRATA_E_ARCHIVE_DAYS"),
        ({"STRATA_E_DELETE_DAYS": "-0.5"}, "STRATA_E_DELETE_DAYS"),
    ],
)
def test_inconsistent_values_are_refused(environ: dict[str, str], variable: str) -> None:
    with pytest.raises(ConfigError, match=variable):
        Settings.from_env(environ)


def test_overrides_are_validated_too() -> None:
    with pytest.raises(ConfigError, match="STRATA_MAX_BATCH"):
        Settings.from_env({}, max_batch=0)


def test_negative_chunk_overlap_is_refused() -> None:
    # A negative overlap leaves gaps: words between chunks would never be embedded.
    with pytest.raises(ConfigError, match="STRATA_CHUNK_OVERLAP"):
        Settings.from_env({"STRATA_CHUNK_OVERLAP": "-10"})


def test_settings_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().port = 1  # type: ignore[misc]


def test_tier_weights_are_parsed_and_checked() -> None:
    parsed = Settings.from_env({"STRATA_TIER_WEIGHTS": '{"A": 2, "E": 1}'})
    assert parsed.tier_weights == {"A": 2.0, "E": 1.0}
    for bad in ('{"B": 1}', '{"A": 0}', "[1]"):
        with pytest.raises(ConfigError):
            Settings.from_env({"STRATA_TIER_WEIGHTS": bad})
