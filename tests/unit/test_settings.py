"""Settings from STRATA_* variables and CLI overrides."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from service.errors import ConfigError
from service.net.addresses import is_loopback, redacted
from service.settings import PLACES, Place, Settings, variable

KEYS = {"STRATA_API_KEYS": "admin-key-0123456789=admin"}
REFUSED = "refusing to listen on 0.0.0.0 without API keys"
CLUSTER = {"STRATA_CHROMA_URL": "http://chroma:8000"}
VARIABLES = {
    "STRATA_HOST": ("server", "host"),
    "STRATA_PORT": ("server", "port"),
    "STRATA_API_KEYS": ("server", "api_keys"),
    "STRATA_API_KEYS_FILE": ("server", "api_keys_file"),
    "STRATA_MAX_BATCH": ("server", "max_batch"),
    "STRATA_MAX_BODY_BYTES": ("server", "max_body_bytes"),
    "STRATA_MAX_IMPORT_BYTES": ("server", "max_import_bytes"),
    "STRATA_MAX_HIT_CHARS": ("server", "max_hit_chars"),
    "STRATA_MAX_DOCUMENTS": ("server", "max_documents"),
    "STRATA_MAX_DOCUMENTS_BYTES": ("server", "max_documents_bytes"),
    "STRATA_SEARCH_THREADS": ("server", "search_threads"),
    "STRATA_WRITE_THREADS": ("server", "write_threads"),
    "STRATA_ALLOWED_ORIGINS": ("server", "allowed_origins"),
    "STRATA_TRUSTED_PROXIES": ("server", "trusted_proxies"),
    "STRATA_UI_SECRET": ("server", "ui_secret"),
    "STRATA_REQUESTS_PER_SECOND": ("limits", "requests_per_second"),
    "STRATA_REQUESTS_IN_FLIGHT": ("limits", "requests_in_flight"),
    "STRATA_CHUNKS_EMBEDDED_PER_MINUTE": ("limits", "chunks_embedded_per_minute"),
    "STRATA_CHUNKS_EMBEDDED_PER_WRITE": ("limits", "chunks_embedded_per_write"),
    "STRATA_LIMIT_ADDRESSES": ("limits", "limit_addresses"),
    "STRATA_SIGN_IN_FAILURES_PER_MINUTE": ("limits", "sign_in_failures_per_minute"),
    "STRATA_DATA_DIR": ("storage", "data_dir"),
    "STRATA_CHROMA_URL": ("storage", "chroma_url"),
    "STRATA_MODEL_CACHE": ("storage", "model_cache"),
    "STRATA_DATABASE_URL": ("storage", "database_url"),
    "STRATA_ENGINE_TIMEOUT": ("storage", "engine_timeout"),
    "STRATA_EMBEDDING_MODEL": ("models", "embedding_model"),
    "STRATA_EMBEDDING_BACKEND": ("models", "embedding_backend"),
    "STRATA_MODEL_THREADS": ("models", "threads"),
    "STRATA_RERANKER_MODEL": ("models", "reranker_model"),
    "STRATA_RERANKER_BACKEND": ("models", "reranker_backend"),
    "STRATA_RERANK_MAX_TOKENS": ("models", "rerank_max_tokens"),
    "STRATA_FUSION": ("search", "fusion"),
    "STRATA_RANKING_MODEL": ("search", "ranking_model"),
    "STRATA_KEYWORD_SHARE": ("search", "keyword_share"),
    "STRATA_RRF_K": ("search", "rrf_k"),
    "STRATA_BM25_WEIGHT": ("search", "bm25_weight"),
    "STRATA_VECTOR_WEIGHT": ("search", "vector_weight"),
    "STRATA_CANDIDATES": ("search", "candidates"),
    "STRATA_RERANK": ("search", "rerank"),
    "STRATA_RERANK_CANDIDATES": ("search", "rerank_candidates"),
    "STRATA_TIER_WEIGHTS": ("search", "tier_weights"),
    "STRATA_C_RECENCY_DAYS": ("search", "c_recency_days"),
    "STRATA_MMR_LAMBDA": ("search", "mmr_lambda"),
    "STRATA_MIN_SCORE": ("search", "min_score"),
    "STRATA_UNEMBEDDED_CANDIDATES": ("search", "unembedded_candidates"),
    "STRATA_QUERY_CACHE_SIZE": ("search", "query_cache_size"),
    "STRATA_QUERY_CACHE_SECONDS": ("search", "query_cache_seconds"),
    "STRATA_QUERY_CACHE_BYTES": ("search", "query_cache_bytes"),
    "STRATA_CHUNK_WORDS": ("chunking", "words"),
    "STRATA_CHUNK_OVERLAP": ("chunking", "overlap"),
    "STRATA_MAX_CHUNKS": ("chunking", "max_chunks"),
    "STRATA_SIMILAR_THRESHOLD": ("chunking", "similar_threshold"),
    "STRATA_STRONG_MATCH_THRESHOLD": ("answers", "strong_match_threshold"),
    "STRATA_CALIBRATION": ("answers", "calibration"),
    "STRATA_ANSWER_WEIGHTS": ("answers", "weights"),
    "STRATA_TYPE_WEIGHTS": ("answers", "type_weights"),
    "STRATA_FRESHNESS_DAYS": ("answers", "freshness_days"),
    "STRATA_ROUTINE_SIMILARITY": ("answers", "routine_similarity"),
    "STRATA_ROUTINE_MIN_SIMILAR": ("answers", "routine_min_similar"),
    "STRATA_C_TTL_DAYS": ("lifecycle", "c_ttl_days"),
    "STRATA_TTL_BY_CHAIN_TYPE": ("lifecycle", "ttl_by_chain_type"),
    "STRATA_JOBS": ("lifecycle", "jobs"),
    "STRATA_EXPIRE_C_CRON": ("lifecycle", "expire_c_cron"),
    "STRATA_ARCHIVE_E_CRON": ("lifecycle", "archive_e_cron"),
    "STRATA_OPTIMIZE_CRON": ("lifecycle", "optimize_cron"),
    "STRATA_RECOVER_CRON": ("lifecycle", "recover_cron"),
    "STRATA_BACKFILL_CRON": ("lifecycle", "backfill_cron"),
    "STRATA_RESCAN_CRON": ("lifecycle", "rescan_cron"),
    "STRATA_TRIM_CHANGES_CRON": ("lifecycle", "trim_changes_cron"),
    "STRATA_SWEEP_CRON": ("lifecycle", "sweep_cron"),
    "STRATA_SWEEP_AFTER": ("lifecycle", "sweep_after"),
    "STRATA_E_ARCHIVE_DAYS": ("lifecycle", "e_archive_days"),
    "STRATA_E_DELETE_DAYS": ("lifecycle", "e_delete_days"),
    "STRATA_COLLECTION_ROOTS": ("collections", "roots"),
    "STRATA_MAX_COLLECTION_FILES": ("collections", "max_files"),
    "STRATA_MAX_FILE_BYTES": ("collections", "max_file_bytes"),
    "STRATA_REPLICA_NAME": ("cluster", "replica_name"),
    "STRATA_REPLICA_POLL_MS": ("cluster", "replica_poll_ms"),
    "STRATA_CHANGE_RETENTION_DAYS": ("cluster", "change_retention_days"),
    "STRATA_METRICS": ("telemetry", "metrics"),
    "STRATA_METRICS_TOKEN": ("telemetry", "metrics_token"),
    "STRATA_LOG_FORMAT": ("telemetry", "log_format"),
    "STRATA_TRACE_CONTENT": ("telemetry", "trace_content"),
    "STRATA_UPSTREAM_URL": ("upstream", "url"),
    "STRATA_UPSTREAM_KEY": ("upstream", "key"),
    "STRATA_UPSTREAM_NAME": ("upstream", "name"),
    "STRATA_UPSTREAM_NAMESPACES": ("upstream", "namespaces"),
    "STRATA_UPSTREAM_TIMEOUT": ("upstream", "timeout"),
    "STRATA_UPSTREAM_RETRIES": ("upstream", "retries"),
    "STRATA_UPSTREAM_BACKOFF_MS": ("upstream", "backoff_ms"),
    "STRATA_UPSTREAM_FAILURES": ("upstream", "failures"),
    "STRATA_UPSTREAM_COOLDOWN": ("upstream", "cooldown"),
    "STRATA_UPSTREAM_IN_FLIGHT": ("upstream", "in_flight"),
    "STRATA_UPSTREAM_ON_WEAK": ("upstream", "on_weak"),
    "STRATA_UPSTREAM_STORE": ("upstream", "store"),
}
"""Every variable the service reads, and the group and field of ``Settings`` it sets."""


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
    assert settings.server.host == "0.0.0.0"
    assert settings.server.port == 9000
    assert settings.storage.data_dir == Path("/var/lib/strata")
    assert settings.lifecycle.c_ttl_days == 2.5
    assert settings.search.rrf_k == 10.0
    assert settings.server.api_keys == "k=admin"
    assert (settings.chunking.words, settings.chunking.overlap) == (200, 40)


def test_every_field_has_its_variable() -> None:
    samples = {int: "7", float: "0.5", Path: "/tmp/x", str: "text"}
    by_name = {
        "allowed_origins": "http://localhost:5173",
        "database_url": "postgresql://db/x",
        "ui_secret": "s" * 32,
        "trusted_proxies": "10.0.0.0/8",
        "collection_roots": "/srv/notes",
        "upstream_url": "http://127.0.0.1:9000",
    }
    # A switch accepts only its own words: set it to the other one.
    switches = {"on": "off", "off": "on", "learned": "rrf", "onnx-int8": "torch", "onnx": "torch"}
    defaults = Settings()
    for name, place in PLACES.items():
        if name in ("ttl_by_chain_type", "tier_weights", "chunk_words", "chunk_overlap"):
            continue  # covered below: a mapping, and a pair checked together

        def read(raw: str, place: Place = place, name: str = name) -> object:
            # With keys configured, any host may be set; with Chroma, any database.
            parsed = Settings.from_env({**KEYS, **CLUSTER, variable(name): raw})
            return getattr(getattr(parsed, place.group), place.attribute)

        default: Any = defaults.value(name)
        if isinstance(default, dict):
            changed = {key: weight / 2 for key, weight in default.items()}
            assert read(json.dumps(changed)) == changed, name
            continue
        kind = Path if isinstance(default, Path) else type(default)
        if default is None:  # unset by default: a number when set, or folders
            kind = str if name == "collection_roots" else float
        sample = by_name.get(name) or switches.get(default, samples[kind])
        assert read(sample) == kind(sample), name


def test_each_variable_sets_the_setting_it_always_has() -> None:
    """Where each variable lands in ``Settings``: a field renamed in the code keeps its
    variable, so a deployment's environment means what it meant."""
    found = {variable(name): (p.group, p.attribute) for name, p in PLACES.items()}
    assert found == VARIABLES


def test_empty_variable_counts_as_unset() -> None:
    assert Settings.from_env({"STRATA_PORT": "", "STRATA_HOST": ""}) == Settings()


def test_empty_reranker_model_turns_reranking_off() -> None:
    assert Settings.from_env({"STRATA_RERANKER_MODEL": ""}).models.reranker_model == ""


def test_overrides_win_over_the_environment() -> None:
    settings = Settings.from_env(
        {"STRATA_PORT": "9000", "STRATA_HOST": "0.0.0.0", **KEYS}, port=7000, data_dir="/srv/data"
    )
    assert settings.server.port == 7000
    assert settings.server.host == "0.0.0.0"
    assert settings.storage.data_dir == Path("/srv/data")


def test_none_overrides_are_ignored() -> None:
    settings = Settings.from_env({"STRATA_PORT": "9000"}, port=None, host=None)
    assert settings.server.port == 9000
    assert settings.server.host == "127.0.0.1"


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
    assert settings.lifecycle.ttl_by_chain_type == {"standup": 2.0, "retro": 0.5}


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
        ({"STRATA_BM25_WEIGHT": "-1"}, "STRATA_BM25_WEIGHT"),
        ({"STRATA_VECTOR_WEIGHT": "-0.1"}, "STRATA_VECTOR_WEIGHT"),
        ({"STRATA_JOBS": "yes"}, "STRATA_JOBS"),
        ({"STRATA_E_ARCHIVE_DAYS": "-1"}, "STRATA_E_ARCHIVE_DAYS"),
        ({"STRATA_E_DELETE_DAYS": "-0.5"}, "STRATA_E_DELETE_DAYS"),
        ({"STRATA_KEYWORD_SHARE": "1.5"}, "STRATA_KEYWORD_SHARE"),
        ({"STRATA_MMR_LAMBDA": "0"}, "STRATA_MMR_LAMBDA"),
        ({"STRATA_RERANK_MAX_TOKENS": "3"}, "STRATA_RERANK_MAX_TOKENS"),
        ({"STRATA_TYPE_WEIGHTS": '{"fact": 2}'}, "STRATA_TYPE_WEIGHTS"),
        ({"STRATA_ANSWER_WEIGHTS": '{"relevance": 1}'}, "STRATA_ANSWER_WEIGHTS"),
        ({"STRATA_QUERY_CACHE_SIZE": "-1"}, "STRATA_QUERY_CACHE_SIZE"),
    ],
)
def test_inconsistent_values_are_refused(environ: dict[str, str], variable: str) -> None:
    with pytest.raises(ConfigError, match=variable):
        Settings.from_env(environ)


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("STRATA_FUSION", "x", "learned, score, rrf"),
        ("STRATA_EMBEDDING_BACKEND", "gpu", "onnx-int8, onnx, torch"),
        ("STRATA_RERANKER_BACKEND", "ONNX", "onnx-int8, onnx, torch"),
        ("STRATA_RERANK", "yes", "on, off"),
        ("STRATA_JOBS", "true", "on, off"),
    ],
)
def test_a_word_setting_names_its_words(name: str, raw: str, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({name: raw})
    assert str(raised.value) == f"{name}: expected one of {words}, got {raw!r}"


def test_overrides_are_validated_too() -> None:
    with pytest.raises(ConfigError, match="STRATA_MAX_BATCH"):
        Settings.from_env({}, max_batch=0)


def test_negative_chunk_overlap_is_refused() -> None:
    # A negative overlap leaves gaps: words between chunks would never be embedded.
    with pytest.raises(ConfigError, match="STRATA_CHUNK_OVERLAP"):
        Settings.from_env({"STRATA_CHUNK_OVERLAP": "-10"})


def test_settings_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Settings().server.port = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Settings().server = Settings().server  # type: ignore[misc]


def test_tier_weights_are_parsed_and_checked() -> None:
    parsed = Settings.from_env({"STRATA_TIER_WEIGHTS": '{"A": 2, "E": 1}'})
    assert parsed.search.tier_weights == {"A": 2.0, "E": 1.0}
    for bad in ('{"B": 1}', '{"A": 0}', "[1]"):
        with pytest.raises(ConfigError, match="STRATA_TIER_WEIGHTS"):
            Settings.from_env({"STRATA_TIER_WEIGHTS": bad})


def test_replace_changes_settings_by_name_and_checks_them(tmp_path: Path) -> None:
    changed = Settings().replace(data_dir=tmp_path, max_batch=5, jobs="off")
    assert changed.storage.data_dir == tmp_path
    assert (changed.server.max_batch, changed.lifecycle.jobs) == (5, "off")
    assert changed.search == Settings().search
    with pytest.raises(ConfigError, match="STRATA_MAX_BATCH"):
        changed.replace(max_batch=0)
    with pytest.raises(TypeError, match="colour"):
        changed.replace(colour="red")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "example.com", "::"])
def test_a_host_beyond_loopback_needs_api_keys(host: str) -> None:
    with pytest.raises(ConfigError, match=f"refusing to listen on {host} without API keys"):
        Settings.from_env({"STRATA_HOST": host})
    with pytest.raises(ConfigError, match="refusing"):
        Settings.from_env({"STRATA_API_KEYS": " ; "}, host=host)
    assert Settings.from_env({"STRATA_HOST": host, **KEYS}).server.has_keys
    keys_file = Settings.from_env({"STRATA_HOST": host, "STRATA_API_KEYS_FILE": "keys.json"})
    assert keys_file.server.host == host


def test_the_host_flag_is_held_to_the_same_rule() -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({}, host="0.0.0.0")
    assert str(raised.value) == (
        f"{REFUSED}; set STRATA_API_KEYS or STRATA_API_KEYS_FILE, or bind to 127.0.0.1"
    )
    with pytest.raises(ConfigError, match=REFUSED):
        Settings().replace(host="0.0.0.0")


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_needs_no_keys(host: str) -> None:
    assert is_loopback(host)
    settings = Settings.from_env({"STRATA_HOST": host})
    assert (settings.server.host, settings.server.has_keys) == (host, False)


def test_allowed_origins_are_read_as_browsers_write_them() -> None:
    given = " HTTP://LocalHost:5173/ ,https://notes.example:443,, http://[::1]:3000"
    server = Settings.from_env({"STRATA_ALLOWED_ORIGINS": given}).server
    assert server.origins == {"http://localhost:5173", "https://notes.example", "http://[::1]:3000"}
    assert Settings().server.origins == frozenset()


@pytest.mark.parametrize(
    "raw", ["localhost:5173", "http://localhost:5173/app", "ftp://files.example", "http://"]
)
def test_an_allowed_origin_must_be_an_origin(raw: str) -> None:
    with pytest.raises(ConfigError, match=f"STRATA_ALLOWED_ORIGINS: {raw!r} is not an origin"):
        Settings.from_env({"STRATA_ALLOWED_ORIGINS": f"http://ok.example,{raw}"})


def test_trusted_proxies_are_addresses_and_networks_and_none_by_default() -> None:
    given = " 10.0.0.0/8 ,192.0.2.7,, ::1"
    proxies = Settings.from_env({"STRATA_TRUSTED_PROXIES": given}).server.proxies
    assert [str(n) for n in proxies.networks] == ["10.0.0.0/8", "192.0.2.7/32", "::1/128"]
    assert not Settings().server.proxies, "no proxy is trusted unless named"


@pytest.mark.parametrize("raw", ["*", "proxy.internal", "10.0.0.1/8", "192.0.2.300"])
def test_a_trusted_proxy_must_be_an_address_or_a_network(raw: str) -> None:
    expected = f"STRATA_TRUSTED_PROXIES: {re.escape(repr(raw))} is not an IP"
    with pytest.raises(ConfigError, match=expected):
        Settings.from_env({"STRATA_TRUSTED_PROXIES": f"127.0.0.1,{raw}"})


def test_a_database_url_makes_the_stores_shared() -> None:
    url = "postgresql://strata:s3cret@db.internal:5432/strata"
    storage = Settings.from_env({"STRATA_DATABASE_URL": url, **CLUSTER}).storage
    assert (storage.database_url, storage.shared) == (url, True)
    assert not Settings().storage.shared


@pytest.mark.parametrize(
    "url", ["mysql://strata:s3cret@db/strata", "db.internal:5432", "sqlite:///tmp/x.db"]
)
def test_a_database_url_must_be_postgresql_and_its_password_is_never_shown(url: str) -> None:
    expected = "STRATA_DATABASE_URL: expected a postgresql://"
    with pytest.raises(ConfigError, match=expected) as raised:
        Settings.from_env({"STRATA_DATABASE_URL": url, **CLUSTER})
    assert "s3cret" not in str(raised.value)


def test_a_shared_database_needs_a_shared_chroma() -> None:
    env = {"STRATA_DATABASE_URL": "postgresql://strata:s3cret@db/strata"}
    with pytest.raises(ConfigError, match="STRATA_CHROMA_URL") as raised:
        Settings.from_env(env)
    assert "s3cret" not in str(raised.value)


def test_redacted_hides_only_the_password() -> None:
    assert redacted("postgresql://ann:pw@db:5432/x?sslmode=require") == (
        "postgresql://ann:***@db:5432/x?sslmode=require"
    )
    assert redacted("postgresql://db/x") == "postgresql://db/x"


def test_cluster_settings_are_read_and_checked() -> None:
    cluster = Settings.from_env(
        {
            "STRATA_REPLICA_NAME": "api-2",
            "STRATA_REPLICA_POLL_MS": "50",
            "STRATA_CHANGE_RETENTION_DAYS": "1.5",
        }
    ).cluster
    assert (cluster.replica_name, cluster.replica_poll_ms, cluster.change_retention_days) == (
        "api-2",
        50,
        1.5,
    )
    with pytest.raises(ConfigError, match="STRATA_CHANGE_RETENTION_DAYS"):
        Settings.from_env({"STRATA_CHANGE_RETENTION_DAYS": "0"})
    with pytest.raises(ConfigError, match="STRATA_REPLICA_POLL_MS"):
        Settings.from_env({"STRATA_REPLICA_POLL_MS": "0"})


def test_a_console_secret_too_short_to_sign_with_is_refused() -> None:
    with pytest.raises(ConfigError, match="STRATA_UI_SECRET: at least 32 characters, got 8"):
        Settings.from_env({"STRATA_UI_SECRET": "password"})
    assert Settings.from_env({"STRATA_UI_SECRET": "s" * 32}).server.ui_secret == "s" * 32


def test_limits_are_set_per_role_and_a_role_left_out_keeps_its_default() -> None:
    limits = Settings.from_env(
        {
            "STRATA_REQUESTS_PER_SECOND": '{"agent": 2.5}',
            "STRATA_REQUESTS_IN_FLIGHT": '{"admin": 0}',
            "STRATA_CHUNKS_EMBEDDED_PER_MINUTE": '{"agent": 100, "admin": 200}',
            "STRATA_CHUNKS_EMBEDDED_PER_WRITE": '{"admin": 50}',
            "STRATA_LIMIT_ADDRESSES": "on",
            "STRATA_SIGN_IN_FAILURES_PER_MINUTE": "3",
        }
    ).limits
    defaults = Settings().limits
    assert (limits.per_second("agent"), limits.per_second("admin")) == (2.5, 500)
    assert (limits.in_flight("agent"), limits.in_flight("admin")) == (8, 0)
    assert (limits.chunks_per_minute("agent"), limits.chunks_per_minute("admin")) == (100, 200)
    assert (limits.chunks_per_write("agent"), limits.chunks_per_write("admin")) == (128, 50)
    assert (limits.limit_addresses, limits.sign_in_failures_per_minute) == ("on", 3)
    assert defaults.limit_addresses == "off", "without keys, no address is limited unless asked"


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("STRATA_REQUESTS_PER_SECOND", '{"robot": 1}', "takes the roles agent and admin"),
        ("STRATA_REQUESTS_PER_SECOND", '{"agent": -1}', "expected float >= 0.0 in each entry"),
        ("STRATA_REQUESTS_IN_FLIGHT", '{"admin": 1.5}', "expected int"),
        ("STRATA_CHUNKS_EMBEDDED_PER_MINUTE", "3000", "expected object"),
        ("STRATA_CHUNKS_EMBEDDED_PER_WRITE", '{"reader": 5}', "takes the roles agent and admin"),
        ("STRATA_LIMIT_ADDRESSES", "yes", "expected one of on, off"),
        ("STRATA_SIGN_IN_FAILURES_PER_MINUTE", "-1", "expected int >= 0"),
    ],
)
def test_bad_limits_name_their_variable(name: str, raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"^{name}: |^{name} takes") as raised:
        Settings.from_env({name: raw})
    assert message in str(raised.value)


def test_collection_roots_default_to_home_without_keys_and_to_none_with_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    assert Settings().collections.root_folders(has_keys=False) == ("/home/me",)
    assert Settings().collections.root_folders(has_keys=True) == ()
    assert (
        Settings.from_env({"STRATA_COLLECTION_ROOTS": ""}).collections.root_folders(has_keys=False)
        == ()
    )


def test_collection_roots_are_a_list_by_commas_or_path_separators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    given = f" ~/notes , /srv/docs{os.pathsep}/srv/wiki,, "
    roots = Settings.from_env({"STRATA_COLLECTION_ROOTS": given}).collections
    assert roots.root_folders(has_keys=True) == ("/home/me/notes", "/srv/docs", "/srv/wiki")


@pytest.mark.parametrize("name", ["STRATA_MAX_COLLECTION_FILES", "STRATA_MAX_FILE_BYTES"])
def test_collection_bounds_are_positive(name: str) -> None:
    with pytest.raises(ConfigError, match=f"{name}: expected int >= 1, got '0'"):
        Settings.from_env({name: "0"})
