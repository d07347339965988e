"""API keys: parsing, authentication, namespace scope and roles."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from service.application.auth import OPEN, KeyRing, Principal
from service.errors import ConfigError, Forbidden, Unauthorized

AGENT_KEY = "agent-key-0123456789"
ADMIN_KEY = "admin-key-0123456789"


def fingerprint(key: str) -> str:
    """The name a key without one acts under in entry histories."""
    return "key:" + hashlib.sha256(key.encode()).hexdigest()[:8]


def test_spec_gives_roles_and_namespace_scopes() -> None:
    ring = KeyRing.load(f"{AGENT_KEY}=agent:team, ops ; {ADMIN_KEY}=admin;")
    assert ring.enabled
    assert ring.authenticate(f"Bearer {AGENT_KEY}") == Principal(
        "agent", frozenset({"team", "ops"}), fingerprint(AGENT_KEY)
    )
    assert ring.authenticate(f"Bearer {ADMIN_KEY}") == Principal(
        "admin", None, fingerprint(ADMIN_KEY)
    )


def test_key_without_namespaces_may_use_any() -> None:
    ring = KeyRing.load(f"{AGENT_KEY}=agent")
    assert ring.authenticate(f"Bearer {AGENT_KEY}").namespaces is None


def test_no_keys_means_open_admin_access() -> None:
    ring = KeyRing.load("", "")
    assert not ring.enabled
    assert ring.authenticate(None) is OPEN
    assert OPEN.role == "admin" and OPEN.namespaces is None


def test_json_file_adds_keys(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(
        json.dumps(
            [
                {"key": AGENT_KEY, "role": "agent", "namespaces": ["team"]},
                {"key": ADMIN_KEY, "role": "admin"},
            ]
        )
    )
    ring = KeyRing.load("", str(path))
    assert ring.authenticate(f"Bearer {AGENT_KEY}") == Principal(
        "agent", frozenset({"team"}), fingerprint(AGENT_KEY)
    )
    assert ring.authenticate(f"Bearer {ADMIN_KEY}") == Principal(
        "admin", None, fingerprint(ADMIN_KEY)
    )


def test_open_access_acts_as_local() -> None:
    assert KeyRing.load("").authenticate(None).name == "local"


def test_key_acts_under_its_fingerprint_never_the_key_itself() -> None:
    name = KeyRing.load(f"{AGENT_KEY}=agent").authenticate(f"Bearer {AGENT_KEY}").name
    assert name == fingerprint(AGENT_KEY)
    assert name.startswith("key:") and len(name) == len("key:") + 8
    assert AGENT_KEY not in name


def test_file_row_name_is_the_principal_name(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(
        json.dumps(
            [
                {"key": AGENT_KEY, "role": "agent", "name": "alice-bot"},
                {"key": ADMIN_KEY, "role": "admin", "name": ""},
            ]
        )
    )
    ring = KeyRing.load("", str(path))
    assert ring.authenticate(f"Bearer {AGENT_KEY}").name == "alice-bot"
    # An empty name falls back to the fingerprint.
    assert ring.authenticate(f"Bearer {ADMIN_KEY}").name == fingerprint(ADMIN_KEY)


def test_spec_and_file_are_combined(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps([{"key": ADMIN_KEY, "role": "admin"}]))
    ring = KeyRing.load(f"{AGENT_KEY}=agent", str(path))
    assert ring.authenticate(f"Bearer {AGENT_KEY}").role == "agent"
    assert ring.authenticate(f"Bearer {ADMIN_KEY}").role == "admin"


@pytest.mark.parametrize("spec", ["short=admin", f"{AGENT_KEY}=agent;tiny=agent:team"])
def test_keys_shorter_than_16_characters_are_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="16 characters"):
        KeyRing.load(spec)


def test_short_key_in_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps([{"key": "short", "role": "admin"}]))
    with pytest.raises(ConfigError, match="16 characters"):
        KeyRing.load("", str(path))


@pytest.mark.parametrize("spec", [f"{AGENT_KEY}=root", f"{AGENT_KEY}", f"{AGENT_KEY}=:team"])
def test_unknown_or_missing_role_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="role"):
        KeyRing.load(spec)


def test_unknown_role_in_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps([{"key": AGENT_KEY, "role": "superuser"}]))
    with pytest.raises(ConfigError, match="superuser"):
        KeyRing.load("", str(path))


def test_unreadable_or_malformed_file_names_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "keys.json"
    broken.write_text("[{not json")
    with pytest.raises(ConfigError, match=r"keys\.json"):
        KeyRing.load("", str(broken))
    with pytest.raises(ConfigError, match=r"missing\.json"):
        KeyRing.load("", str(tmp_path / "missing.json"))


def test_file_without_keys_is_refused(tmp_path: Path) -> None:
    # Settings take a keys file as keys configured: one holding none must not open access.
    path = tmp_path / "keys.json"
    path.write_text("[]")
    with pytest.raises(ConfigError, match="holds no keys"):
        KeyRing.load(f"{AGENT_KEY}=agent", str(path))


def test_file_row_without_a_key_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps([{"role": "admin"}]))
    with pytest.raises(ConfigError):
        KeyRing.load("", str(path))


def test_base64_key_with_padding_can_be_given_in_the_spec() -> None:
    # What `openssl rand -base64 32` prints: 44 characters ending in "=".
    key = "q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0xcv="
    ring = KeyRing.load(f"{key}=admin")
    assert ring.authenticate(f"Bearer {key}").role == "admin"


@pytest.mark.parametrize("header", [None, "", AGENT_KEY, f"Basic {AGENT_KEY}"])
def test_missing_or_malformed_header_is_unauthorized(header: str | None) -> None:
    with pytest.raises(Unauthorized, match="Bearer"):
        KeyRing.load(f"{AGENT_KEY}=agent").authenticate(header)


def test_bearer_without_a_key_is_unauthorized() -> None:
    with pytest.raises(Unauthorized):
        KeyRing.load(f"{AGENT_KEY}=agent").authenticate("Bearer ")


@pytest.mark.parametrize(
    "presented", [ADMIN_KEY, AGENT_KEY[:-1], AGENT_KEY + "x", AGENT_KEY.upper()]
)
def test_wrong_key_is_unauthorized(presented: str) -> None:
    with pytest.raises(Unauthorized, match="unknown"):
        KeyRing.load(f"{AGENT_KEY}=agent").authenticate(f"Bearer {presented}")


@pytest.mark.parametrize(
    "header", [f"Bearer {AGENT_KEY}", f"bearer {AGENT_KEY}", f"BEARER  {AGENT_KEY} "]
)
def test_right_key_gives_its_principal(header: str) -> None:
    ring = KeyRing.load(f"{AGENT_KEY}=agent:team")
    assert ring.authenticate(header) == Principal(
        "agent", frozenset({"team"}), fingerprint(AGENT_KEY)
    )


def test_unscoped_key_defaults_to_the_default_namespace_and_may_use_any() -> None:
    principal = Principal("agent")
    assert principal.namespace(None) == "default"
    assert principal.namespace("anything") == "anything"


def test_key_of_one_namespace_defaults_to_it() -> None:
    assert Principal("agent", frozenset({"team"})).namespace(None) == "team"


def test_key_of_several_namespaces_defaults_to_default_if_allowed() -> None:
    assert Principal("agent", frozenset({"team", "default"})).namespace(None) == "default"
    with pytest.raises(Forbidden, match="'default'"):
        Principal("agent", frozenset({"team", "ops"})).namespace(None)


def test_namespace_outside_the_scope_is_forbidden_naming_the_field() -> None:
    principal = Principal("agent", frozenset({"team"}))
    assert principal.namespace("team") == "team"
    with pytest.raises(Forbidden, match=r"^events\[0\]\.namespace: .*'other'"):
        principal.namespace("other", "events[0].namespace")
    with pytest.raises(Forbidden):
        principal.check("other")


def test_admin_scope_limits_namespaces_too() -> None:
    with pytest.raises(Forbidden):
        Principal("admin", frozenset({"team"})).namespace("other")


def test_require_admin() -> None:
    Principal("admin").require_admin()
    with pytest.raises(Forbidden, match="admin"):
        Principal("agent").require_admin()


@pytest.mark.parametrize("spec", [f"{AGENT_KEY}=agent:", f"{AGENT_KEY}=agent: , ;"])
def test_an_empty_namespace_list_in_the_spec_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="empty namespace list"):
        KeyRing.load(spec)


@pytest.mark.parametrize("namespaces", [[], [""], ["  "]])
def test_an_empty_namespace_list_in_the_file_is_refused(
    tmp_path: Path, namespaces: list[str]
) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps([{"key": AGENT_KEY, "role": "agent", "namespaces": namespaces}]))
    with pytest.raises(ConfigError, match="empty namespace list"):
        KeyRing.load("", str(path))
