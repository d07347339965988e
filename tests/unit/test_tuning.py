"""Which threshold and floor a namespace's requests are given: its fit, the deployment's,
or the shipped calibration, read from the ledger at most every few seconds."""

from __future__ import annotations

from service.domain.answers.tuning import DEPLOYMENT, KEPT_SECONDS, Tuning, Tunings
from service.domain.model.references import Fit
from tests.fakes import FakeLedger

SHIPPED = Tuning(0.73, 0.002)


def fit(namespace: str, threshold: float, floor: float) -> Fit:
    return Fit(namespace, 0, threshold, floor, 1.0, "alice")


def test_a_namespace_takes_its_fit_else_the_deployments_else_the_shipped_one() -> None:
    ledger = FakeLedger()
    tunings = Tunings(ledger, SHIPPED, clock=lambda: 0.0)
    assert tunings.of("team") == SHIPPED and SHIPPED.name == "shipped"
    ledger.add_fit(fit(DEPLOYMENT, 0.6, 0.01))
    ledger.add_fit(fit("team", 0.5, 0.02))
    tunings.forget()
    assert tunings.of("team") == Tuning(0.5, 0.02, "namespace", 1)
    assert tunings.of("other") == Tuning(0.6, 0.01, "deployment", 1)
    assert tunings.of("team").name == "namespace v1"
    ledger.activate_fit("team", 0)
    tunings.forget()
    assert tunings.of("team").scope == "deployment"


def test_a_fit_is_read_again_once_it_has_been_kept_a_few_seconds() -> None:
    ledger, now = FakeLedger(), [0.0]
    tunings = Tunings(ledger, SHIPPED, clock=lambda: now[0])
    assert tunings.of("team") == SHIPPED
    ledger.add_fit(fit("team", 0.5, 0.02))
    now[0] = KEPT_SECONDS - 0.1
    assert tunings.of("team") == SHIPPED
    now[0] = KEPT_SECONDS + 0.1
    assert tunings.of("team").version == 1


def test_without_fits_every_namespace_takes_the_shipped_calibration() -> None:
    assert Tunings(None, SHIPPED).of("team") is SHIPPED
