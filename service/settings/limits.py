"""How much one API key or client address may ask of the service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from msgspec import Meta, field

from service.errors import ConfigError
from service.settings.base import Group, Switch, variable

ROLES = ("agent", "admin")
"""The roles of API keys (``service.application.auth`` gives them to keys)."""
_PER_SECOND = {"agent": 20, "admin": 500}
_IN_FLIGHT = {"agent": 8, "admin": 64}
_CHUNKS_PER_MINUTE = {"agent": 3000, "admin": 60000}
_CHUNKS_PER_WRITE = {"agent": 128, "admin": 0}


class LimitSettings(Group, frozen=True):
    requests_per_second: Mapping[str, Annotated[float, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_PER_SECOND)
    )
    """Requests one API key may send a second, by its role, as JSON; a second's worth may
    come at once, and more get 429. A role left out keeps its default; 0: no limit. An
    agent makes a call every few seconds, or a few a second when several share its key: 20
    is far above that, yet holds one key to about a sixth of the hybrid searches two cores
    answer (about 130 a second), so a runaway agent cannot crowd out the others. An admin
    key runs imports, benchmarks and the console: 500 only stops a loop gone wrong."""
    requests_in_flight: Mapping[str, Annotated[int, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_IN_FLIGHT)
    )
    """Requests of one API key served at once, by its role, as JSON; one more gets 429, so
    the requests of one key cannot queue up ahead of another key's. A role left out keeps
    its default; 0: no limit. 8, twice STRATA_SEARCH_THREADS, is more than an agent's
    parallel tool calls need; 64 lets an admin's load test run at concurrency 32."""
    chunks_embedded_per_minute: Mapping[str, Annotated[int, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_CHUNKS_PER_MINUTE)
    )
    """Chunks one API key's writes of tier A and C entries may have embedded a minute, by
    its role, as JSON; a minute's worth may come at once, and a write needing more gets
    429. A batch needing more than a minute's worth is taken when the allowance is whole,
    and the key then waits until it is paid back. A role left out keeps its default; 0: no
    limit. An agent recording every turn of a busy conversation embeds a few chunks a
    minute, and 3000 (about 450,000 words) still lets it import a notebook in a minute; two
    cores embed some 100 to 150 chunks a second, so one agent's import leaves the model at
    least half its time for the others. 60,000 only stops an admin's loop gone wrong.
    Tier E text, which is not embedded but still counted in tokens, chunked and indexed, is
    charged too, a chunk for every 10,000 characters (a tenth of the price of embedded
    text): an agent may write 30 MB of it a minute."""
    chunks_embedded_per_write: Mapping[str, Annotated[int, Meta(ge=0)]] = field(
        default_factory=lambda: dict(_CHUNKS_PER_WRITE)
    )
    """Chunks one write of an API key may have embedded, by its role, as JSON (tier E text
    counted as in ``chunks_embedded_per_minute``); a write needing more gets 413, and is
    sent again in smaller batches. A role left out keeps its default; 0: no limit. A chunk
    filling the model's window costs some 30 ms of CPU on two cores, so an agent's write of
    128 (some 25,000 words, or 1.28 MB of tier E text) takes under 5 s of the service's
    time, and no agent's one request holds a write thread longer; an admin's imports and
    writes are not held to it."""
    limit_addresses: Switch = "off"
    """Without API keys, keep the admin role's limits (every caller is an admin then) for
    each client address: ``on`` or ``off``. Off by default: without keys the service listens
    on loopback only, where every caller is the person running it."""
    sign_in_failures_per_minute: Annotated[int, Meta(ge=0)] = 10
    """Failed authentications (an unknown API key) allowed a minute: of each key tried, and
    of each client address, which counts the wrong keys it sends that no count holds yet
    (keys sent to the REST API, ``/mcp`` and the console's sign-in alike); ten may come at
    once. Past a key's allowance that key answers 429, from anywhere, so an agent left with
    a stale key holds back itself alone; past an address's, any key sent from there answers
    429 (right or wrong: a guess learns nothing), except a right key already served from that
    address. Ten is more than anyone mistyping a key needs, and holds a guesser to 14,410 keys
    a day from one address (an IPv6 /64), on each replica (see Security); 0: no limit."""

    def per_second(self, role: str) -> float:
        """``requests_per_second`` of ``role``; 0: no limit."""
        return float(self.requests_per_second.get(role, _PER_SECOND[role]))

    def in_flight(self, role: str) -> int:
        """``requests_in_flight`` of ``role``; 0: no limit."""
        return int(self.requests_in_flight.get(role, _IN_FLIGHT[role]))

    def chunks_per_minute(self, role: str) -> int:
        """``chunks_embedded_per_minute`` of ``role``; 0: no limit."""
        return int(self.chunks_embedded_per_minute.get(role, _CHUNKS_PER_MINUTE[role]))

    def chunks_per_write(self, role: str) -> int:
        """``chunks_embedded_per_write`` of ``role``; 0: no limit."""
        return int(self.chunks_embedded_per_write.get(role, _CHUNKS_PER_WRITE[role]))

    def __post_init__(self) -> None:
        for name in (
            "requests_per_second",
            "requests_in_flight",
            "chunks_embedded_per_minute",
            "chunks_embedded_per_write",
        ):
            if unknown := sorted(set(getattr(self, name)) - set(ROLES)):
                raise ConfigError(
                    f"{variable(name)} takes the roles {' and '.join(ROLES)}, not {unknown}"
                )
