"""The API explorer at ``/schema`` in a real Chromium, with no way out of loopback: every
script, style and document it needs comes from the service itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Route, expect, sync_playwright

from tests.e2e.test_console import CHROMIUM
from tests.e2e.test_server import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("explorer") / "data")
    try:
        yield running
    finally:
        running.stop()


def test_the_explorer_shows_every_operation_without_internet(server: Server) -> None:
    assert Path(CHROMIUM).exists()
    elsewhere: list[str] = []

    def only_loopback(route: Route) -> None:
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--no-first-run"]
        )
        try:
            page = browser.new_page()
            page.route("**/*", only_loopback)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.url}/schema")
            operation = page.locator(".opblock-summary-path", has_text="/v1/search").first
            expect(operation).to_be_visible(timeout=20_000)
            operation.click()  # the request's body, from the served document
            expect(page.get_by_text("fields").first).to_be_visible()
            assert page.locator(".opblock").count() > 20
            assert (elsewhere, errors) == ([], [])
        finally:
            browser.close()
