"""Which client a request names through ``X-Forwarded-For``: only a trusted proxy's request
names one, and then only as far as the proxies it passed through are trusted."""

from __future__ import annotations

import pytest

from service.net.addresses import client_of
from service.net.proxies import TrustedProxies

BALANCER = TrustedProxies.parse("10.0.0.0/8,192.0.2.7")


def test_without_trusted_proxies_the_client_is_always_the_peer() -> None:
    none = TrustedProxies.parse("")
    assert not none
    assert none.client("127.0.0.1", ["192.0.2.55"]) == "127.0.0.1"


def test_a_request_from_an_untrusted_peer_names_no_one() -> None:
    assert BALANCER.client("198.51.100.4", ["192.0.2.55"]) == "198.51.100.4"


def test_a_trusted_proxy_names_the_peer_it_saw() -> None:
    assert BALANCER.client("10.0.0.2", ["192.0.2.55"]) == "192.0.2.55"
    assert BALANCER.client("10.0.0.2", []) == "10.0.0.2", "no header: the proxy itself"


def test_addresses_a_client_wrote_left_of_the_proxy_s_are_never_read() -> None:
    # The client sent "X-Forwarded-For: 203.0.113.1"; the balancer appended what it saw.
    assert BALANCER.client("10.0.0.2", ["203.0.113.1, 198.51.100.4"]) == "198.51.100.4"
    assert BALANCER.client("10.0.0.2", ["203.0.113.1", "198.51.100.4"]) == "198.51.100.4"


def test_a_chain_of_trusted_proxies_is_followed_to_the_first_untrusted_address() -> None:
    chain = ["203.0.113.1, 198.51.100.4, 192.0.2.7, 10.1.2.3"]
    assert BALANCER.client("10.0.0.2", chain) == "198.51.100.4"
    assert BALANCER.client("10.0.0.2", ["10.9.9.9, 10.1.2.3"]) == "10.9.9.9", "all trusted"


@pytest.mark.parametrize("hop", ["unknown", "_hidden", "proxy.internal", "", "999.1.1.1"])
def test_an_entry_that_is_not_an_address_stops_at_the_last_proxy_known(hop: str) -> None:
    assert BALANCER.client("10.0.0.2", [f"203.0.113.1, {hop}"]) == "10.0.0.2"
    assert BALANCER.client("10.0.0.2", [f"{hop}, 10.1.2.3"]) == "10.1.2.3"


@pytest.mark.parametrize(
    ("hop", "client"),
    [
        ("198.51.100.4:4711", "198.51.100.4"),
        ("[2001:db8::7]:4711", "2001:db8::7"),
        ("2001:DB8:0::7", "2001:db8::7"),
        ("::ffff:198.51.100.4", "198.51.100.4"),
        (" 198.51.100.4 ", "198.51.100.4"),
    ],
)
def test_each_address_is_read_as_proxies_write_it_and_named_one_way(hop: str, client: str) -> None:
    assert BALANCER.client("10.0.0.2", [hop]) == client


def test_a_peer_mapped_into_ipv6_is_trusted_as_its_ipv4_address() -> None:
    assert BALANCER.trusts("::ffff:10.0.0.2")
    assert not BALANCER.trusts("::ffff:198.51.100.4")
    assert not BALANCER.trusts("testclient")


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("::1", "::/64"),
        ("unknown", "unknown"),
        ("testclient", "testclient"),
    ],
)
def test_a_client_is_its_ipv4_address_or_its_ipv6_64(address: str, client: str) -> None:
    assert client_of(address) == client
