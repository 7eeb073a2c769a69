"""Issue 32: the carrier finder page for agents (/finder/) in a real browser (Chromium).

Log in -> describe a business -> a suggested class -> find carriers -> the carriers ranked with
their reasons, strength, access and where to submit -> start a submission to a chosen product
(a uw_submission record in the workspace's own database, which a bound rule scores) -> answer a
question the market asks -> match again -> a changed answer. With UPDATE_SCREENSHOTS=1 the test
rewrites docs/images/finder-*.png (docs/carrier-finder.md).
"""

from __future__ import annotations

import datetime
import os
import re
import time

import pytest

from insureops.platform.carrier_finder.market.loading import store_market
from insureops.platform.keys import DATABASE, SETTINGS
from insureops.platform.tenancy.workspaces import embedded_database_url
from tests.carrier_matching.example_market import example_market
from tests.platform.carrier_finder.test_submissions import SCORING
from tests.platform.rules_studio.work_helpers import tenant_rows
from tests.platform.studio_web.conftest import ROOT
from tests.platform.workspaces import PASSWORD

pytestmark = pytest.mark.browser

MATCH_MS = 120_000  # a match on a loaded test machine; seconds alone
DESCRIPTION = "Residential and light commercial electrical contractor: service calls and panel upgrades."


def store_example_market(service) -> None:
    async def store() -> None:
        async with service.app[DATABASE].unit_of_work() as uow:
            await store_market(uow.session, example_market(),
                               now=datetime.datetime.now(datetime.UTC))
            await uow.commit()

    service.run(store())


def shot(page, name: str) -> None:
    if os.environ.get("UPDATE_SCREENSHOTS"):
        page.screenshot(path=str(ROOT / "docs" / "images" / f"finder-{name}.png"), full_page=True)


def bind_a_scoring_rule(service, page) -> None:
    """A published rule on uw_submission, bound on `created`, through the studio's API with the
    page's session (the studio does the same with its forms)."""
    headers = {"Origin": service.url}
    created = page.request.post(f"{service.url}/api/rules/rules/", data={"source": SCORING},
                                headers=headers)
    assert created.status == 201, created.text()
    rule_id = created.json()["id"]
    published = page.request.patch(f"{service.url}/api/rules/rules/{rule_id}/",
                                   data={"published_version": 1}, headers=headers)
    assert published.status == 200, published.text()
    bound = page.request.post(f"{service.url}/api/rules/bindings/", data={
        "rule_id": rule_id, "record_type": "uw_submission", "on": ["created"]}, headers=headers)
    assert bound.status == 201, bound.text()


def wait_for(check, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.2)
    return found


@pytest.mark.live_settings(rules_dispatch_seconds=0.2)
def test_an_agent_finds_carriers_answers_a_question_and_starts_a_submission_on_the_page(
        live_service, page):
    from playwright.sync_api import expect

    store_example_market(live_service)
    workspace = live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    response = page.goto(f"{live_service.url}/finder/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy

    page.get_by_label("E-mail").fill("ann@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")  # the keyboard submits the form
    expect(page.locator("#who")).to_contain_text("Ann Lee")
    # landmarks and live regions a screen reader announces
    expect(page.get_by_role("banner")).to_be_visible()
    expect(page.get_by_role("main")).to_be_visible()
    assert page.locator("#status").get_attribute("aria-live") == "polite"
    assert page.locator("#error").get_attribute("role") == "alert"
    bind_a_scoring_rule(live_service, page)

    # describe the business; the classifier suggests its class
    page.get_by_label("What the business does").fill(DESCRIPTION)
    page.get_by_role("button", name="Suggest a class").click()
    expect(page.locator("#status")).to_contain_text("suggested classes")
    expect(page.get_by_label("NAICS code")).to_have_value(re.compile(r"^\d{6}$"))
    page.get_by_label("NAICS code").fill("238210")
    page.get_by_label("Name", exact=True).fill("Bright Spark Electric")
    page.get_by_label("State (code or name)").fill("arizona")
    page.get_by_label("Annual revenue ($)").fill("$1,750,000")
    page.get_by_label("Years in business").fill("15")
    page.get_by_label("CGL").check()
    page.get_by_role("button", name="Find carriers").click()

    # carriers ranked with reasons, strength, access and where to submit
    # the first match reads the stored market (compiled from the cache when warm)
    expect(page.locator("#status")).to_contain_text("carrier(s) would write it",
                                                    timeout=MATCH_MS)
    first = page.locator("#results .carrier").first
    expect(first.get_by_role("heading", level=3)).to_contain_text("Granite Trades Mutual")
    expect(first).to_contain_text("Direct appointment")
    expect(first).to_contain_text("Submit to")
    expect(first).to_contain_text("preferred appetite")
    expect(first).to_contain_text("minimum premium $1,250")
    expect(first.locator(".reasons li").first).to_contain_text("Target class")
    expect(page.locator("#questions .warnings")).to_contain_text("read as AZ")
    shot(page, "results")

    # a product chosen: the submission record (for a new client), with where it goes
    page.get_by_role("button", name="Start a submission to Trade Contractors General Liability").click()
    expect(page.locator("#submission-title")).to_be_focused()
    expect(page.get_by_label("Submission (copy it, or send it)")).to_have_value(
        re.compile("Bright Spark Electric"))
    assert page.locator("#submission-email").get_attribute("href").startswith(
        "mailto:submissions@granitetrades.example")
    record = page.locator("#submission-record")
    expect(record).to_contain_text("liability")
    expect(record).to_contain_text("Bright Spark Electric")
    expect(page.locator("#status")).to_contain_text("started for Trade Contractors")
    shot(page, "submission")
    # the workspace's own (embedded) database holds it, and the bound rule scored it
    url = embedded_database_url(live_service.app[SETTINGS].tenant_sqlite_root, workspace)
    submissions = tenant_rows(url, "SELECT id, lob, client_id FROM uw_submissions")
    assert len(submissions) == 1 and submissions[0]["lob"] == "liability"
    assert submissions[0]["client_id"] is not None
    scores = wait_for(lambda: tenant_rows(url, "SELECT submission_id, decision FROM uw_scores"))
    assert [(str(s["submission_id"]), s["decision"]) for s in scores] == [
        (str(submissions[0]["id"]), "refer")]
    expect(record).to_contain_text(str(submissions[0]["id"]).replace("-", "")[:8])

    # answer a question the market asks: more than half subcontracted is declined
    question = page.get_by_label(re.compile("share of the work is subcontracted"))
    question.fill("60")
    page.get_by_role("button", name="Match again with these answers").click()
    expect(page.locator("#results")).not_to_contain_text(
        "Accepts: Trade Contractors General Liability", timeout=MATCH_MS)

    # saving needs a tenant API key: without one the page says so, in the alert region
    page.get_by_role("button", name="Save as a client").click()
    expect(page.locator("#error")).to_contain_text("API key")
    assert not [m for m in page.console_messages if "error" in m.lower()]
