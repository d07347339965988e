"""A small typed Python client for the strata REST API.

from service.remote.client import StrataClient

with StrataClient("http://127.0.0.1:8080", api_key=None) as strata:
    strata.remember("We chose Postgres for billing.", tier="A", speaker="alice")
    for hit in strata.search("which database?").results:
        print(hit.score, hit.text)

Each method returns the response decoded into its type from ``schemas.wire``; an error
response raises ``StrataClientError``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn, TypeVar

import httpx
import msgspec

from schemas import wire
from service.errors import ConfigError

T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8080"
CONFIG_FILE = Path("~/.config/strata/config.toml")
"""Where ``url`` and ``api_key`` are read from when neither argument nor variable gives them;
``STRATA_CONFIG`` names another file."""


def connection(
    url: str | None = None,
    api_key: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[str, str | None]:
    """The service URL and API key: arguments first, then ``STRATA_URL`` and
    ``STRATA_API_KEY``, then the config file, then the loopback default and no key."""
    file = _config(Path(environ.get("STRATA_CONFIG") or CONFIG_FILE).expanduser())
    found_url = url or environ.get("STRATA_URL") or file.get("url") or DEFAULT_URL
    key = api_key if api_key is not None else environ.get("STRATA_API_KEY") or file.get("api_key")
    return str(found_url), None if key is None else str(key)


def _config(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {path}: {exc}") from exc


class StrataClientError(Exception):
    """The service answered with an error; ``problem`` is its problem-details body."""

    def __init__(self, status: int, problem: Mapping[str, Any]) -> None:
        self.status = status
        self.problem = dict(problem)
        super().__init__(f"{status} {problem.get('title', '')}: {problem.get('detail', '')}")


class StrataClient:
    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """``url`` and ``api_key`` default to ``STRATA_URL`` and ``STRATA_API_KEY``, then to
        the config file (see ``connection``)."""
        base_url, key = connection(url, api_key)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(
            base_url=base_url,
            headers=headers,
            timeout=timeout,
            transport=transport,
        )

    def __enter__(self) -> StrataClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, kind: type[T], method: str, path: str, **kwargs: Any) -> T:
        """Send a request and decode its answer as ``kind``."""
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise_problem(response)
        return msgspec.json.decode(response.content, type=kind)

    # -- events and entries
    def add_events(self, events: Sequence[Mapping[str, Any]]) -> wire.EventsResponse:
        return self._call(wire.EventsResponse, "POST", "/v1/events", json={"events": list(events)})

    def remember(self, text: str, *, tier: str = "A", **fields: Any) -> str:
        """Record one event; returns its id (the existing entry's when it repeats one).
        ``supersedes=[ids]`` replaces entries."""
        event = {"text": text, "tier": tier, **{k: v for k, v in fields.items() if v is not None}}
        return self.add_events([event]).ids[0]

    def search(self, query: str, **options: Any) -> wire.SearchResponse:
        """Options as ``/v1/search`` takes them (``as_of="2026-11-01T00:00:00Z"``,
        ``include_superseded=True``, ...)."""
        body = {"query": query, **{k: v for k, v in options.items() if v is not None}}
        return self._call(wire.SearchResponse, "POST", "/v1/search", json=body)

    def retrieve(self, question: str, **options: Any) -> wire.RetrieveResponse:
        """The best grounded entries, ``strong_match`` and the reasoning patterns."""
        body = {"question": question, **{k: v for k, v in options.items() if v is not None}}
        return self._call(wire.RetrieveResponse, "POST", "/v1/retrieve", json=body)

    def context(self, question: str, **options: Any) -> wire.ContextResponse:
        """Memory for ``question`` as one cited block within ``max_tokens`` (default 512),
        with the structured list of what it holds; options as ``/v1/context`` takes them
        (``tiers=["A"]``, ``tags=[...]``, ``format="text"``, ...)."""
        body = {"question": question, **{k: v for k, v in options.items() if v is not None}}
        return self._call(wire.ContextResponse, "POST", "/v1/context", json=body)

    def feedback(
        self,
        interaction_id: str,
        rating: str,
        comment: str | None = None,
        *,
        answers: Sequence[str] | None = None,
        nothing: bool = False,
    ) -> wire.FeedbackResponse:
        """Rate an answer; with ``answers`` (the entries that answered, or should have) or
        ``nothing``, its question becomes a reference question."""
        body = feedback_body(interaction_id, rating, comment, answers, nothing)
        return self._call(wire.FeedbackResponse, "POST", "/v1/feedback", json=body)

    def record_reference(
        self,
        question: str,
        answers: Sequence[str] = (),
        *,
        nothing: bool = False,
        namespace: str | None = None,
    ) -> wire.ReferenceOut:
        """Record a question whose answer is known: the entries that answer it, or
        ``nothing`` does."""
        body = reference_body(question, answers, nothing, namespace)
        return self._call(wire.ReferenceOut, "POST", "/v1/references", json=body)

    def references(
        self, namespace: str | None = None, offset: int = 0, limit: int = 100
    ) -> wire.ReferencesResponse:
        params = {"offset": offset, "limit": limit, **_ns(namespace)}
        return self._call(wire.ReferencesResponse, "GET", "/v1/references", params=params)

    def daily_report(
        self, day: str | None = None, namespace: str | None = None
    ) -> wire.DailyReportResponse:
        return self._call(
            wire.DailyReportResponse,
            "GET",
            "/v1/reports/daily",
            params=_given(date=day, namespace=namespace),
        )

    def routine_check(self, task: str, namespace: str | None = None) -> wire.RoutineCheckResponse:
        return self._call(
            wire.RoutineCheckResponse,
            "POST",
            "/v1/routine-check",
            json={"task": task, **_ns(namespace)},
        )

    def get_entry(self, entry_id: str, namespace: str | None = None) -> wire.EntryDetail:
        """An entry with what it replaced (``supersedes``) and what replaced it."""
        return self._call(wire.EntryDetail, "GET", f"/v1/entries/{entry_id}", params=_ns(namespace))

    def delete_entry(self, entry_id: str, namespace: str | None = None) -> wire.DeleteResponse:
        return self._call(
            wire.DeleteResponse, "DELETE", f"/v1/entries/{entry_id}", params=_ns(namespace)
        )

    def history(self, entry_id: str, namespace: str | None = None) -> wire.HistoryResponse:
        path = f"/v1/entries/{entry_id}/history"
        return self._call(wire.HistoryResponse, "GET", path, params=_ns(namespace))

    # -- collections and documents
    def add_collection(
        self,
        name: str,
        path: str,
        *,
        mask: str | None = None,
        namespace: str | None = None,
        tier: str | None = None,
    ) -> wire.ScanOut:
        body = {"name": name, "path": path, "mask": mask, "namespace": namespace, "tier": tier}
        return self._call(
            wire.ScanOut,
            "POST",
            "/v1/collections",
            json={k: v for k, v in body.items() if v is not None},
        )

    def collections(self) -> wire.CollectionsResponse:
        return self._call(wire.CollectionsResponse, "GET", "/v1/collections")

    def collection(self, name: str) -> wire.CollectionOut:
        return self._call(wire.CollectionOut, "GET", f"/v1/collections/{name}")

    def update_collection(self, name: str) -> wire.ScanOut:
        return self._call(wire.ScanOut, "POST", f"/v1/collections/{name}/update")

    def rename_collection(self, name: str, new_name: str) -> wire.CollectionOut:
        return self._call(
            wire.CollectionOut, "PATCH", f"/v1/collections/{name}", json={"name": new_name}
        )

    def remove_collection(self, name: str) -> wire.CollectionOut:
        return self._call(wire.CollectionOut, "DELETE", f"/v1/collections/{name}")

    def get_document(
        self, path: str, from_line: int = 1, lines: int | None = None
    ) -> wire.DocumentOut:
        params: dict[str, Any] = {"path": path, "from": from_line}
        if lines is not None:
            params["lines"] = lines
        return self._call(wire.DocumentOut, "GET", "/v1/documents", params=params)

    def get_documents(self, pattern: str, max_bytes: int = 65536) -> wire.DocumentsResponse:
        body = {"pattern": pattern, "max_bytes": max_bytes}
        return self._call(wire.DocumentsResponse, "POST", "/v1/documents/batch", json=body)

    # -- namespaces whole
    def export(self, namespace: str, *, vectors: bool = False) -> Iterator[bytes]:
        """The namespace as JSON Lines, in pieces as the service streams them."""
        params = {"vectors": "true" if vectors else "false"}
        path = f"/v1/namespaces/{namespace}/export"
        with self._http.stream("GET", path, params=params, timeout=None) as response:
            if response.status_code >= 400:
                response.read()
                raise_problem(response)
            yield from response.iter_bytes()

    def import_file(
        self, namespace: str, lines: IO[bytes], *, skip_bad_lines: bool = False
    ) -> wire.ImportResponse:
        """Read an export file into ``namespace`` (sent as it is read, never whole)."""
        return self._call(
            wire.ImportResponse,
            "POST",
            f"/v1/namespaces/{namespace}/import",
            content=iter(lambda: lines.read(1 << 16), b""),
            params={"skip_bad_lines": "true" if skip_bad_lines else "false"},
            headers={"Content-Type": "application/x-ndjson"},
            timeout=None,
        )

    def erase(self, namespace: str) -> wire.ErasureResponse:
        """Remove every trace of the namespace (admin); returns the audit record."""
        return self._call(
            wire.ErasureResponse,
            "DELETE",
            f"/v1/namespaces/{namespace}",
            params={"confirm": namespace},
            timeout=None,
        )

    def erasures(self) -> wire.ErasuresResponse:
        return self._call(wire.ErasuresResponse, "GET", "/v1/admin/erasures")

    # -- service
    def health(self) -> wire.Health:
        return self._call(wire.Health, "GET", "/health")

    def stats(self) -> wire.StatsResponse:
        return self._call(wire.StatsResponse, "GET", "/v1/stats")

    # -- admin
    def promote(self, ids: Sequence[str], namespace: str | None = None) -> wire.PromoteResponse:
        body: dict[str, Any] = {"ids": list(ids), **_ns(namespace)}
        return self._call(wire.PromoteResponse, "POST", "/v1/admin/promote", json=body)

    def sweep(
        self, namespace: str | None = None, *, deployment: bool = False
    ) -> wire.SweepResponse:
        """Fit the namespace's calibration on its reference questions, or with
        ``deployment`` the deployment's on every namespace's (admin)."""
        body = {**_ns(namespace), **_deployment(deployment)}
        return self._call(wire.SweepResponse, "POST", "/v1/admin/sweep", json=body)

    def calibrations(
        self, namespace: str | None = None, *, deployment: bool = False
    ) -> wire.CalibrationsResponse:
        params = {**_ns(namespace), **_deployment(deployment)}
        path = "/v1/admin/calibrations"
        return self._call(wire.CalibrationsResponse, "GET", path, params=params)

    def roll_back(
        self, version: int, namespace: str | None = None, *, deployment: bool = False
    ) -> wire.CalibrationUsed:
        """Apply the namespace's (or the deployment's) fit of ``version`` again (0: none of
        its own)."""
        body = {"version": version, **_ns(namespace), **_deployment(deployment)}
        path = "/v1/admin/calibrations/rollback"
        return self._call(wire.CalibrationUsed, "POST", path, json=body)

    def jobs(self) -> wire.JobsResponse:
        return self._call(wire.JobsResponse, "GET", "/v1/admin/jobs")

    def run_job(self, name: str) -> wire.JobOut:
        return self._call(wire.JobOut, "POST", f"/v1/admin/jobs/{name}/run")

    def rebuild(self) -> wire.RebuildOut:
        return self._call(wire.RebuildOut, "POST", "/v1/admin/rebuild")

    def rebuild_status(self) -> wire.RebuildOut:
        return self._call(wire.RebuildOut, "GET", "/v1/admin/rebuild")


def raise_problem(response: httpx.Response) -> NoReturn:
    """The error answer ``response`` as a ``StrataClientError``."""
    try:
        problem = response.json()
    except ValueError:
        problem = {"title": response.reason_phrase, "detail": response.text}
    raise StrataClientError(response.status_code, problem)


def feedback_body(
    interaction_id: str,
    rating: str,
    comment: str | None,
    answers: Sequence[str] | None,
    nothing: bool,
) -> dict[str, Any]:
    """The body of ``POST /v1/feedback``: what is given, nothing else."""
    body: dict[str, Any] = {"interaction_id": interaction_id, "rating": rating}
    body |= _given(comment=comment, answers=None if answers is None else list(answers))
    return body | ({"nothing": True} if nothing else {})


def reference_body(
    question: str, answers: Sequence[str], nothing: bool, namespace: str | None
) -> dict[str, Any]:
    """The body of ``POST /v1/references``."""
    return {"question": question, "answers": list(answers), "nothing": nothing, **_ns(namespace)}


def _ns(namespace: str | None) -> dict[str, str]:
    return {"namespace": namespace} if namespace else {}


def _deployment(deployment: bool) -> dict[str, bool]:
    return {"deployment": True} if deployment else {}


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}
