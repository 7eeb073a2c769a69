"""Fixtures of the studio page's browser tests: the real service on a free port, and Chromium.

The service runs in a thread of its own (an aiohttp AppRunner on 127.0.0.1:0, a copy of the
migrated SQLite platform template in the test's tmp dir); the test drives Debian's Chromium through
Playwright's sync API (browser downloads are impossible here, so `executable_path` points at the
system browser), one browser per module and a fresh context (no cookies, no storage) per test. A
failed test leaves a screenshot under test-artifacts/studio_web/ (git-ignored).
"""

from __future__ import annotations

import asyncio
import datetime
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from cryptography.fernet import Fernet

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.identity import Membership, User, Workspace, new_tenant_id
from insureops.platform.keys import DATABASE
from tests.databases import Template
from tests.platform.workspaces import PASSWORD, cheap_areas, password_hash

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "studio_web"
TIMEOUT_MS = 10_000  # any one browser step; the journey as a whole takes a few seconds


def chromium_path() -> str | None:
    found = os.environ.get("INSUREOPS_TEST_CHROMIUM") or shutil.which("chromium")
    return found if found and Path(found).exists() else None


class LiveService:
    """The whole service on a free port, served from a thread with its own event loop."""

    def __init__(self, settings: Settings) -> None:
        self.loop = asyncio.new_event_loop()
        self.workspaces: dict[str, str] = {}  # name -> id
        self.app = create_app(settings, areas=cheap_areas())
        self.runner = web.AppRunner(self.app, access_log=None)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.run(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.run(site.start())
        host, port = self.runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=60)

    def close(self) -> None:
        self.run(self.runner.cleanup())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def add_user(self, email: str, name: str, workspace: str, role: str = "owner") -> str:
        """A verified user (password PASSWORD) with `role` in the workspace named `workspace`
        (made when new), written straight into the platform database: the browser logs in
        through the page. Returns the workspace id."""

        async def add() -> str:
            now = datetime.datetime.now(datetime.UTC)
            user_id = new_tenant_id(now.timestamp())
            workspace_id = self.workspaces.get(workspace) or new_tenant_id(now.timestamp())
            user = User(
                id=user_id,
                email=email,
                name=name,
                password_hash=password_hash(),
                email_verified_at=now,
                created_at=now,
            )
            async with self.app[DATABASE].unit_of_work() as uow:
                uow.session.add(user)
                if workspace not in self.workspaces:
                    uow.session.add(
                        Workspace(tenant_id=workspace_id, name=workspace, created_at=now)
                    )
                await uow.session.flush()
                uow.session.add(
                    Membership(
                        user_id=user_id, workspace_id=workspace_id, role=role, created_at=now
                    )
                )
            return workspace_id

        self.workspaces[workspace] = self.run(add())
        return self.workspaces[workspace]

    def add_owner(self, email: str, name: str, workspace: str) -> str:
        return self.add_user(email, name, workspace, "owner")


@pytest.fixture
def live_service(tmp_path: Path, request, sqlite_databases) -> Iterator[LiveService]:
    """The service on a migrated platform database of its own; a test marked
    `@pytest.mark.live_settings(name=value)` changes settings."""
    marker = request.node.get_closest_marker("live_settings")
    settings = Settings(
        database_url=sqlite_databases.copy(Template.PLATFORM, tmp_path).async_,
        secret_key="test-secret-key",
        fernet_keys=(Fernet.generate_key().decode(),),
        load_example_market=False,
        **(marker.kwargs if marker else {}),
    )
    service = LiveService(settings)
    try:
        yield service
    finally:
        service.close()


@pytest.fixture(scope="module")
def browser():
    """Chromium, per module (each test has a context of its own): Playwright's sync API holds
    an event loop while it runs, which would break the async tests pytest-asyncio runs after it
    in the same worker, so it never outlives the browser tests' module."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the browser tests need `pip install playwright`"
    )
    executable = chromium_path()
    if executable is None and os.environ.get("CI") == "true":
        pytest.fail("CI must run the browser tests: Chromium is missing (.ci/run installs it)")
    if executable is None:
        pytest.skip(
            "the browser tests need Chromium at /usr/bin/chromium "
            "(apt-get install chromium; .ci/run installs it)"
        )
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.studio_failed = report.failed
    return report


@pytest.fixture
def page(browser, request):
    """A fresh browser context (no cookies) and page; a screenshot is kept when the test fails."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.console_messages = []
    page.on("console", lambda message: page.console_messages.append(message.text))
    try:
        yield page
    finally:
        if getattr(request.node, "studio_failed", False):
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
        context.close()


def log_in(page, service: LiveService, email: str = "ann@example.com") -> None:
    """Open the page and log in through its form."""
    page.goto(f"{service.url}/studio/")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.locator("#who").wait_for()


def set_source(page, source: str) -> None:
    """Replace the editor's text as a user would: select all, delete, type (pasted)."""
    page.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


class Shots:
    """Screenshots for docs/rule-studio.md, written only when UPDATE_SCREENSHOTS=1."""

    def __init__(self, page) -> None:
        self.page = page
        self.folder = ROOT / "docs" / "images" if os.environ.get("UPDATE_SCREENSHOTS") else None

    def take(self, name: str) -> None:
        if self.folder is not None:
            self.page.screenshot(path=str(self.folder / f"studio-{name}.png"), full_page=True)
