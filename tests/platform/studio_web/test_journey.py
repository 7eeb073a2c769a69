"""Issue 16: the author's journey on the studio page, in a real browser (Chromium).

Log in -> create with an error -> the squiggle and the message at the right line -> fix -> tests
pass -> simulate -> a trace -> change -> the impact -> publish. With UPDATE_SCREENSHOTS=1 the
test also rewrites the screenshots docs/rule-studio.md shows (docs/images/studio-*.png).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.platform.studio_web.conftest import Shots, set_source
from tests.platform.workspaces import PASSWORD

pytestmark = pytest.mark.browser

V1 = """ruleset clients.review "Client review"
input client: Client
default decision accept
const HOME = "IL"

rule out_of_state "Client outside the home state"
when client.region != HOME
then
    score += 10
    refer "Client in {client.region ?? "no region"}"
end

test "a home-state client is accepted"
given client = {"name": "Ann", "region": "IL"}
expect decision == "accept" and score == 0
end
"""
WITH_ERROR = V1.replace("client.region != HOME", "client.regoin != HOME")
V2 = V1.replace('const HOME = "IL"', 'const HOME = "WI"').replace(
    '{"name": "Ann", "region": "IL"}', '{"name": "Ann", "region": "WI"}'
)
CASES = "\n".join(
    json.dumps(case)
    for case in [
        {"id": "il", "inputs": {"client": {"name": "A", "region": "IL"}}},
        {"id": "wi", "inputs": {"client": {"name": "B", "region": "WI"}}},
    ]
)


def expect():
    from playwright.sync_api import expect

    return expect


def test_an_author_goes_from_a_broken_draft_to_a_published_rule_when_using_the_page(
    live_service, page
):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    shots = Shots(page)

    # the page itself: same-origin only, served with a strict policy
    response = page.goto(f"{live_service.url}/studio/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy

    # log in
    page.get_by_label("E-mail").fill("ann@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    check(page.locator("#who")).to_contain_text("Ann Lee")

    # create with an error: the squiggle sits on `client.regoin`, line 7; hovering shows message + hint
    page.get_by_role("button", name="New rule").click()
    set_source(page, WITH_ERROR)
    squiggle = page.locator(".cm-line").nth(6).locator(".cm-lintRange-error")
    check(squiggle).to_have_text("client.regoin")
    problem = page.locator("#problems li.error")
    check(problem).to_have_count(1)
    check(problem).to_contain_text("7:6")
    check(problem).to_contain_text("E104")
    squiggle.hover()
    tooltip = page.locator(".cm-tooltip-lint")
    check(tooltip).to_contain_text("regoin")
    check(tooltip).to_contain_text("Hint:")
    shots.take("diagnostics")
    page.get_by_role("button", name="Create (runs tests)").click()
    check(page.locator("#message")).to_contain_text("Not saved: 1 error")

    # the problems list jumps to the place
    problem.get_by_role("button").click()
    selected = page.evaluate("() => window.getSelection().toString()")
    assert selected == "client.regoin"

    # fix -> saved as version 1, its test passes
    set_source(page, V1)
    check(page.locator("#problems")).to_contain_text("No problems.")
    page.get_by_label("Kind", exact=True).last.select_option("triage")
    page.get_by_role("button", name="Create (runs tests)").click()
    check(page.locator("#message")).to_contain_text("Saved version 1: all tests pass")
    check(page.locator("#tests li.pass")).to_contain_text("a home-state client is accepted")
    check(page.locator("#rule-list")).to_contain_text("Client review")
    check(page.locator("#problems")).to_contain_text("No problems.")

    # simulate two cases, then read one case's explanation
    page.get_by_role("tab", name="Simulate").click()
    page.get_by_label(re.compile("Cases, JSON Lines")).fill(CASES)
    page.get_by_role("button", name="Simulate (the editor's source)").click()
    rows = page.locator("#results tbody tr")
    check(rows).to_have_count(2)
    check(rows.nth(0)).to_contain_text("accept")
    check(rows.nth(1)).to_contain_text("refer")
    check(rows.nth(1)).to_contain_text("Client in WI")
    check(rows.nth(1)).to_contain_text("out_of_state")
    page.get_by_role("button", name="Explain wi").click()
    trace = page.locator("#trace")
    check(trace).to_contain_text("rule out_of_state")
    check(trace).to_contain_text("matched")
    check(trace.locator(".steps li").first).to_contain_text("client.region != HOME = true")
    check(trace).to_contain_text('client.region = "WI"')
    shots.take("simulate")

    # change the home state: the impact against version 1, and the source diff
    set_source(page, V2)
    check(page.locator("#problems")).to_contain_text("No problems.")
    page.get_by_role("tab", name="Compare").click()
    page.get_by_label("Compare with").select_option("1")
    page.get_by_role("button", name="Compare", exact=True).click()
    impact = page.locator("#impact tbody tr.moved")
    check(impact).to_have_count(2)
    check(impact.nth(0)).to_contain_text("accept")
    check(impact.nth(0)).to_contain_text("refer")
    check(impact.nth(0)).to_contain_text("il")
    check(page.locator("#impact-summary")).to_contain_text("2 of 2 decisions change")
    check(page.locator("#source-diff tr.removed").first).to_contain_text('const HOME = "IL"')
    check(page.locator("#source-diff tr.added").first).to_contain_text('const HOME = "WI"')
    shots.take("compare")

    # save version 2 and publish it; the history names the author and the test outcome
    page.get_by_role("button", name="Save new version (runs tests)").click()
    check(page.locator("#message")).to_contain_text("Saved version 2: all tests pass")
    page.get_by_role("button", name="Publish v2").click()
    check(page.locator("#message")).to_contain_text("Published version 2.")
    check(page.locator("#rule-status")).to_contain_text("published v2")
    page.get_by_role("tab", name="History").click()
    check(page.locator("#versions tbody tr").first).to_contain_text("v2 (published)")
    check(page.locator("#versions tbody tr").first).to_contain_text("Ann Lee")
    check(page.locator("#versions tbody tr").first).to_contain_text("all pass")
    check(page.locator("#publications")).to_contain_text("published v2")
    shots.take("history")

    assert not [m for m in page.console_messages if "Content Security Policy" in m]
