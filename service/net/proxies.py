"""The proxies trusted to name the client they forward for (STRATA_TRUSTED_PROXIES), and
the client they name.

A request's client is its connection's peer, unless that peer is a trusted proxy: then it
is the rightmost address of ``X-Forwarded-For`` that is not a trusted proxy, each proxy
having appended the peer it saw. What lies left of that address was written by the client,
or by proxies the service does not know, and names whatever its writer liked, so it is
never read; nor is an entry that is not an address (``unknown``, a name): the last proxy
known is then the client. ``Forwarded`` (RFC 7239) is not read at all: a proxy that writes
``X-Forwarded-For`` passes a client's ``Forwarded`` on untouched, so reading it would let
any client name itself.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class TrustedProxies:
    """Networks whose requests may name their client; none: every client is its peer."""

    def __init__(self, networks: Iterable[Network] = ()) -> None:
        self.networks = tuple(networks)

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """``10.0.0.0/8,192.0.2.7,::1``: addresses and networks, comma-separated; ValueError
        naming an item that is neither."""
        networks = []
        for item in filter(None, (part.strip() for part in text.split(","))):
            try:
                networks.append(ipaddress.ip_network(item))
            except ValueError:
                raise ValueError(
                    f"{item!r} is not an IP address or network (192.0.2.7, 10.0.0.0/8)"
                ) from None
        return cls(networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, host: str) -> bool:
        """Whether ``host`` (as a connection or ``X-Forwarded-For`` gives it) is a proxy's."""
        address = _address(host)
        return address is not None and any(address in network for network in self.networks)

    def client(self, peer: str, forwarded_for: Sequence[str]) -> str:
        """The client of a request from ``peer`` that carried the ``X-Forwarded-For``
        headers ``forwarded_for``; ``peer`` itself unless it is trusted."""
        client = peer
        if not self.trusts(peer):
            return client
        hops = [hop for value in forwarded_for for hop in value.split(",")]
        for hop in reversed(hops):
            address = _address(hop)
            if address is None:
                break
            client = str(address)
            if not any(address in network for network in self.networks):
                break
        return client


def _address(hop: str) -> Address | None:
    """The address of ``hop`` as proxies write them (``192.0.2.7``, ``192.0.2.7:4711``,
    ``2001:db8::7``, ``[2001:db8::7]:4711``), an IPv4 address mapped into IPv6 as itself;
    None when it is not one."""
    text = hop.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
