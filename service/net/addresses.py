"""Addresses as settings and requests give them: loopback hosts, browser origins, URLs with
a password to keep out of logs."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin(text: str) -> str | None:
    """``text`` as a browser sends it in ``Origin`` (``scheme://host[:port]``, lowercase, no
    default port), or None when it is not an http(s) origin."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


def redacted(url: str) -> str:
    """``url`` with any password replaced by ``***``, fit for logs and messages."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<unreadable URL>"
    if not password:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    try:
        return urlsplit(url).scheme in ("postgresql", "postgres")
    except ValueError:
        return False


IPV6_CLIENT_PREFIX = 64
"""Bits of an IPv6 address that name one client: a host is routed a /64 (SLAAC, RFC 6177's
smallest end-site assignment) and picks any address of it at will, so an allowance kept per
IPv6 address would be kept per guess."""


def client_of(address: str) -> str:
    """Whom a limit kept per client address counts ``address`` as: itself, but for an IPv6
    address, its /64 (an IPv4-mapped one is the IPv4 address); what is not an address
    (``unknown``), as it is."""
    try:
        found = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.IPv6Network((found, IPV6_CLIENT_PREFIX), strict=False))
    return str(found)
