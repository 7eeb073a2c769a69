"""Accepting an invitation from the e-mailed link in Chromium (issue 33): a new user creates the
account on the page, an existing user logs in there; a dead link says why."""

from __future__ import annotations

import re

import aiohttp
import pytest

from tests.platform.workspaces import PASSWORD

pytestmark = pytest.mark.browser

LINK = re.compile(r"(/invitations/\w{26}/accept\?token=[\w-]+)")


def expect():
    from playwright.sync_api import expect

    return expect


def invite(service, capsys, email: str, role: str) -> str:
    """Ann (an owner) invites `email` through the API; the link as the outbox printed it."""

    async def send() -> None:
        jar = aiohttp.CookieJar(unsafe=True)  # the service is on an IP address
        async with aiohttp.ClientSession(base_url=service.url, cookie_jar=jar) as session:
            login = await session.post("/api/auth/login/",
                                       json={"email": "ann@example.com", "password": PASSWORD})
            assert login.status == 200, await login.text()
            sent = await session.post("/api/team/invite/", json={"email": email, "role": role})
            assert sent.status == 201, await sent.text()

    capsys.readouterr()
    service.run(send())
    return LINK.findall(capsys.readouterr().out)[-1]


def test_a_new_user_creates_the_account_and_joins_from_the_link(live_service, page, capsys):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    link = invite(live_service, capsys, "zoe@example.com", "member")
    page.goto(live_service.url + link)
    check(page).to_have_url(re.compile(r"/accept$"))  # the token left the address bar
    page.get_by_label("Your name").fill("Zoe Park")
    page.get_by_label("New password").fill("a long password for zoe")
    page.get_by_role("button", name="Create account and accept").click()
    check(page.locator("#joined")).to_have_text("You joined Lee Agency as member.")
    page.get_by_role("link", name="Open the rule studio").wait_for()
    profile = page.evaluate("fetch('/api/auth/profile/').then(r => r.json())")
    assert profile["user"]["email"] == "zoe@example.com"  # logged in with the new password
    assert [w["name"] for w in profile["workspaces"]] == ["Lee Agency"]
    assert not [m for m in page.console_messages if "error" in m.lower()]


def test_an_existing_user_logs_in_and_joins_and_a_used_link_says_so(live_service, page,
                                                                       capsys):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    live_service.add_owner("bob@example.com", "Bob Ray", "Ray Brokers")
    link = invite(live_service, capsys, "bob@example.com", "admin")
    page.goto(live_service.url + link)
    page.get_by_label("E-mail").fill("bob@example.com")
    page.get_by_label("Password", exact=True).fill("not his password")
    page.get_by_role("button", name="Log in and accept").click()
    check(page.locator("#status")).to_contain_text("Wrong e-mail or password")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in and accept").click()
    check(page.locator("#joined")).to_have_text("You joined Lee Agency as admin.")
    profile = page.evaluate("fetch('/api/auth/profile/').then(r => r.json())")
    assert sorted(w["name"] for w in profile["workspaces"]) == ["Lee Agency", "Ray Brokers"]
    page.goto(live_service.url + link)  # logged in now: one button; the link is used
    page.get_by_role("button", name="Accept invitation").click()
    check(page.locator("#status")).to_have_text(
        "This invitation was already accepted. Log in to use the workspace.")
