"""API keys: who may call, with which role, over which namespaces."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from service.domain.entries import DEFAULT_NAMESPACE
from service.errors import ConfigError, Forbidden, Unauthorized

Role = Literal["agent", "admin"]
ROLES: tuple[Role, ...] = ("agent", "admin")


@dataclass(frozen=True)
class Principal:
    """The caller. ``namespaces`` None means every namespace."""

    role: Role
    namespaces: frozenset[str] | None = None
    name: str = "local"
    """Who acts, as recorded in entry histories: a key's name or fingerprint."""
    address: str | None = None
    """The client's address when the call came over HTTP; None for the service's own
    callers (jobs, commands run in process), which no limit applies to."""

    def at(self, address: str) -> Principal:
        """This principal calling from ``address``."""
        return replace(self, address=address)

    def namespace(self, requested: str | None, field: str = "namespace") -> str:
        """The namespace to act on: the one asked for, else the key's only one, else default."""
        if requested is None:
            if self.namespaces is not None and len(self.namespaces) == 1:
                return next(iter(self.namespaces))
            requested = DEFAULT_NAMESPACE
        self.check(requested, field)
        return requested

    def may_use(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def check(self, namespace: str, field: str = "namespace") -> None:
        if not self.may_use(namespace):
            raise Forbidden(f"{field}: this API key may not use namespace {namespace!r}")

    def require_admin(self) -> None:
        if self.role != "admin":
            raise Forbidden("this operation needs an admin API key")


OPEN = Principal("admin")
"""The caller when no keys are configured (the service then listens on loopback only)."""


class KeyRing:
    def __init__(self, keys: Mapping[str, Principal]) -> None:
        self._keys = dict(keys)

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def authenticate(self, authorization: str | None) -> Principal:
        if not self._keys:
            return OPEN
        if not authorization or not authorization.lower().startswith("bearer "):
            raise Unauthorized("send an API key as 'Authorization: Bearer <key>'")
        presented = presented_key(authorization).encode()
        match = None
        for key, principal in self._keys.items():
            # Compare against every key so timing does not reveal which prefix matched.
            if hmac.compare_digest(presented, key.encode()):
                match = principal
        if match is None:
            raise Unauthorized("unknown API key")
        return match

    def find(self, proof: Callable[[str], str], presented: str) -> Principal | None:
        """The principal of the key whose ``proof`` (a keyed digest of it) is ``presented``:
        a console session names its key this way without holding it."""
        match = None
        for key, principal in self._keys.items():
            if hmac.compare_digest(proof(key), presented):
                match = principal
        return match

    @classmethod
    def load(cls, spec: str, file: str = "") -> KeyRing:
        """Keys from ``key=role[:ns1,ns2];...`` and a JSON file of objects."""
        keys: dict[str, Principal] = {}
        for item in filter(None, (part.strip() for part in spec.split(";"))):
            # Keys may end in base64 padding ("...=="); roles never contain "=".
            key, _, grant = item.rpartition("=")
            role, scoped, scope = grant.partition(":")
            key = key.strip()
            keys[key] = _principal(role.strip(), scope.split(",") if scoped else None, key)
        if file:
            try:
                rows = json.loads(Path(file).read_text())
            except (OSError, ValueError) as exc:
                raise ConfigError(f"STRATA_API_KEYS_FILE {file}: {exc}") from exc
            if rows == []:  # a server trusting this file would be open to anyone
                raise ConfigError(f"STRATA_API_KEYS_FILE {file}: holds no keys")
            for n, row in enumerate(rows if isinstance(rows, list) else [None]):
                if not isinstance(row, dict) or not isinstance(row.get("key"), str):
                    raise ConfigError(f"STRATA_API_KEYS_FILE {file}: entry {n} needs a 'key'")
                allowed = row.get("namespaces")
                if allowed is not None and not isinstance(allowed, list):
                    raise ConfigError(f"STRATA_API_KEYS_FILE {file}: 'namespaces' must be a list")
                name = str(row.get("name") or "")
                keys[row["key"]] = _principal(str(row.get("role", "")), allowed, row["key"], name)
        if any(len(k) < 16 for k in keys):
            raise ConfigError("API keys must be at least 16 characters long")
        return cls(keys)


def presented_key(authorization: str) -> str:
    """The key an ``Authorization`` header sends: the token of ``Bearer <token>``, else the
    whole header (a guess in another form is counted as one all the same)."""
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else authorization


def _principal(role: str, namespaces: list[str] | None, key: str, name: str = "") -> Principal:
    """A key's principal; ``namespaces`` None: every namespace. A list that names none is a
    mistake (it would read as "every namespace"), refused here."""
    if role not in ROLES:
        raise ConfigError(f"API key role must be one of {', '.join(ROLES)}, not {role!r}")
    fingerprint = "key:" + hashlib.sha256(key.encode()).hexdigest()[:8]
    scope = None
    if namespaces is not None:
        scope = frozenset(str(n).strip() for n in namespaces if str(n).strip())
        if not scope:
            raise ConfigError(
                f"API key {name or fingerprint} has an empty namespace list: name its "
                "namespaces, or give none for every namespace"
            )
    return Principal(role, scope, name or fingerprint)
