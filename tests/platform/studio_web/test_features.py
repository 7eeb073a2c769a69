"""The studio page beyond the journey: filters, upload, keyboard, roll back, archive, and an
appetite tried on a business against the carrier finder (Chromium through Playwright)."""

from __future__ import annotations

import datetime
import json
import re
import shutil

import pytest

from insureops.platform.auth.requirements import Scope
from insureops.platform.carrier_finder.market.startup import example_market_folder, load_folder
from insureops.platform.identity import new_tenant_id
from insureops.platform.keys import DATABASE
from insureops.platform.records.api_keys import ApiKey, hash_api_key, new_api_key, normalise_scopes
from tests.platform.rules_studio.conftest import CLIENT_CHECK
from tests.platform.studio_web.conftest import Shots, log_in, set_source

pytestmark = pytest.mark.browser
RULES = "/api/rules/rules"

TRIAGE = """ruleset triage.small "Small triage"
input claim: Any
default decision accept
const LIMIT = 10000

rule big "Big claim"
when claim.amount > LIMIT
then
    score += 10
    refer "Amount {claim.amount} above {LIMIT}"
end

test "a small claim is accepted"
given claim = {"amount": 50}
expect decision == "accept"
end
"""
PRICING = """ruleset pricing.base "Base price"
input claim: Any
default decision accept

rule always "Always"
when true
then
    score += 1
end
"""


def expect():
    from playwright.sync_api import expect

    return expect


def api(page, method: str, path: str, body: dict | None = None, **headers) -> dict:
    """A call with the page's session (its cookies), as the page itself would make it."""
    response = page.request.fetch(
        page.url.split("/studio/")[0] + path,
        method=method,
        data=json.dumps(body) if body is not None else None,
        headers={"Content-Type": "application/json", **headers},
    )
    assert response.ok, response.text()
    return response.json() if response.status != 204 else {}


def test_rules_are_filtered_rolled_back_and_archived_when_an_author_uses_the_page(
    live_service, page, tmp_path
):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    log_in(page, live_service)
    rule = api(page, "POST", f"{RULES}/", {"source": TRIAGE, "kind": "triage"})
    api(page, "POST", f"{RULES}/", {"source": PRICING, "kind": "pricing"})
    api(
        page,
        "PATCH",
        f"{RULES}/{rule['id']}/",
        {"source": TRIAGE.replace("10000", "1000")},
        **{"If-Match": '"1"'},
    )
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"published_version": 2})
    page.reload()

    # filters: kind, then status
    rules = page.locator("#rule-list li")
    check(rules).to_have_count(2)
    page.get_by_label("Kind").first.select_option("pricing")
    check(rules).to_have_count(1)
    check(rules).to_contain_text("Base price")
    page.get_by_label("Kind").first.select_option("")
    page.get_by_label("Status").select_option("published")
    check(rules).to_have_count(1)
    check(rules).to_contain_text("Small triage")

    # open it; the tabs answer the arrow keys
    rules.get_by_role("button").click()
    check(page.locator("#rule-status")).to_contain_text("published v2")
    page.get_by_role("tab", name="Tests").focus()
    page.keyboard.press("ArrowRight")
    check(page.get_by_role("tab", name="Simulate")).to_have_attribute("aria-selected", "true")
    check(page.get_by_role("tab", name="Simulate")).to_be_focused()

    # cases uploaded from a file
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"id": 1, "inputs": {"claim": {"amount": 5000}}, "expect": {"decision": "accept"}}\n'
    )
    page.get_by_label("Or upload a .jsonl file").set_input_files(str(cases))
    check(page.get_by_label("Cases, JSON Lines", exact=False)).to_have_value(cases.read_text())
    page.get_by_role("button", name="Simulate (the editor's source)").click()
    row = page.locator("#results tbody tr")
    check(row).to_contain_text("refer")
    check(row).to_contain_text("not met")
    check(page.locator("#simulation-summary")).to_contain_text("Expectations: 0 of 1 met")

    # roll back to version 1 from the history
    page.get_by_role("tab", name="History").click()
    page.get_by_role("button", name="Roll back to v1").click()
    check(page.locator("#message")).to_contain_text("Published version 1.")
    check(page.locator("#rule-status")).to_contain_text("published v1")

    # archive, after the confirmation; the rule stays readable, its write buttons are gone
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Archive").click()
    check(page.locator("#message")).to_contain_text("Archived.")
    check(page.locator("#rule-status")).to_contain_text("archived")
    check(page.locator("#save")).to_be_disabled()


def test_an_appetite_is_tried_on_a_business_when_its_kind_is_appetite(live_service, page, tmp_path):
    check = expect()
    carrier = example_market_folder() / "atlas-wholesale"
    shutil.copytree(carrier, tmp_path / "market" / carrier.name)
    live_service.run(
        load_folder(
            live_service.app[DATABASE], tmp_path / "market", now=datetime.datetime.now(datetime.UTC)
        )
    )
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    log_in(page, live_service)

    page.get_by_role("button", name="New rule").click()
    set_source(page, (carrier / "dist-gl.rules").read_text())
    page.locator("#rule-kind").select_option("appetite")
    page.get_by_role("button", name="Create (runs tests)").click()
    check(page.locator("#message")).to_contain_text("Saved version 1")

    page.get_by_role("tab", name="Appetite").click()
    for label, value in [
        ("NAICS code", "423710"),
        ("State (2 letters)", "PA"),
        ("Annual revenue", "28000000"),
        ("Employees", "70"),
        ("Years in business", "7"),
        ("Requested limit", "1000000"),
    ]:
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name="Try").click()
    check(page.locator("#appetite-decision")).to_contain_text("score")
    check(page.locator("#appetite-result .trace")).to_contain_text("rule ")
    matches = page.locator("#matches tbody tr")
    check(matches.first).to_contain_text("Atlas Distribution Insurance Company")
    check(matches.first).to_contain_text("Market")

    # bound to a product of the workspace's own, the draft is listed unmatched with the reason;
    # once published, the finder matches the own product and the page marks its row
    rule_id = api(page, "GET", f"{RULES}/?kind=appetite")["items"][0]["id"]
    api(
        page,
        "POST",
        "/api/v1/carrier_finder/carriers/",
        {"id": "lee-mutual", "name": "Lee Mutual", "states": ["PA"]},
    )
    api(
        page,
        "POST",
        "/api/v1/carrier_finder/products/",
        {
            "carrier_id": "lee-mutual",
            "code": "lee-gl",
            "line": "CGL",
            "name": "Lee GL",
            "max_limit": 2000000,
            "appetite_rule_id": rule_id,
        },
    )
    page.get_by_role("button", name="Try").click()
    unmatched = page.locator("#unmatched li")
    check(unmatched).to_have_count(1)
    check(unmatched).to_contain_text("Lee Mutual · Lee GL")
    check(unmatched).to_contain_text("no published version")
    api(page, "PATCH", f"{RULES}/{rule_id}/", {"published_version": 1})
    page.get_by_role("button", name="Try").click()
    own = page.locator("#matches tbody tr.own")
    check(own).to_have_count(1)
    check(own).to_contain_text("Your own")
    check(own).to_contain_text("Lee GL")
    check(page.locator("#unmatched")).to_have_count(0)
    check(page.locator("#matches tbody tr.market").first).to_contain_text("Market")
    Shots(page).take("appetite")


def test_a_tenant_record_is_simulated_when_added_as_a_case(live_service, page):
    check = expect()
    workspace_id = live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    key = live_service.run(add_key(live_service.app, workspace_id))
    base = live_service.url
    made = page.request.post(
        f"{base}/api/v2/mcp/clients/",
        data=json.dumps({"name": "Bo"}),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    assert made.status == 201, made.text()
    client_uuid = made.json()["uuid"]  # in the workspace's embedded tenant database, no city
    log_in(page, live_service)

    page.get_by_role("button", name="New rule").click()
    set_source(page, CLIENT_CHECK)
    page.get_by_role("tab", name="Simulate").click()
    page.get_by_label("Record type").select_option("client")
    page.get_by_label("Record uuid").fill(client_uuid)
    page.get_by_role("button", name="Add as a case").click()
    check(page.locator("#cases")).to_have_value(re.compile(client_uuid))
    page.get_by_role("button", name="Simulate (the editor's source)").click()
    row = page.locator("#results tbody tr")
    check(row).to_have_count(1)
    check(row).to_contain_text(f"client {client_uuid}")
    check(row).to_contain_text("refer")
    check(row).to_contain_text("No city on file")
    Shots(page).take("simulate-record")


async def add_key(app, workspace_id: str) -> str:
    """A read-write API key of the workspace, written straight into the platform database."""
    key, now = new_api_key(), datetime.datetime.now(datetime.UTC)
    async with app[DATABASE].unit_of_work() as uow:
        uow.session.add(
            ApiKey(
                id=new_tenant_id(now.timestamp()),
                workspace_id=workspace_id,
                name="browser test",
                display_prefix=key[:11],
                key_hash=hash_api_key(key),
                scopes=normalise_scopes((Scope.READ, Scope.WRITE)),
                created_at=now,
            )
        )
    return key


def test_publishing_asks_for_an_approval_when_four_eyes_are_on(live_service, page):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    log_in(page, live_service)
    api(page, "PUT", f"{RULES}/settings/", {"four_eyes": True})
    rule = api(page, "POST", f"{RULES}/", {"source": TRIAGE, "kind": "triage"})
    page.reload()
    page.get_by_role("button", name="Small triage").click()
    check(page.locator("#unsaved")).to_be_hidden()
    page.locator(".cm-content").click()
    page.keyboard.type("# a comment")
    check(page.locator("#unsaved")).to_be_visible()

    page.get_by_role("button", name="Publish v1").click()
    check(page.locator("#message")).to_contain_text("approval")
    page.get_by_role("button", name="Request approval of v1").click()
    check(page.locator("#message")).to_contain_text("Approval of version 1 requested")
    approvals = api(page, "GET", f"{RULES}/{rule['id']}/approvals/")["approvals"]
    assert [(a["version"], a["status"]) for a in approvals] == [(1, "pending")]


def test_a_member_reads_but_cannot_write_when_logged_in(live_service, page):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    live_service.add_user("bo@example.com", "Bo Chen", "Lee Agency", role="member")
    log_in(page, live_service, "bo@example.com")
    check(page.locator("#who")).to_contain_text("(member)")
    check(page.get_by_role("button", name="New rule")).to_be_disabled()
