"""Issue 34: the studio page's missing half in Chromium: the execution log with its filters
and pages, approvals under four eyes (the requester cannot approve), and saved case sets used
by simulate and compare."""

from __future__ import annotations

import datetime
import json
import re

import pytest

from tests.platform.studio_web.conftest import Shots, log_in
from tests.platform.studio_web.test_features import RULES, TRIAGE, api, expect

pytestmark = pytest.mark.browser


def test_the_execution_log_filters_and_pages_when_a_rule_ran(live_service, page):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    log_in(page, live_service)
    rule = api(page, "POST", f"{RULES}/", {"source": TRIAGE, "kind": "triage"})
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"published_version": 1})
    for amount in [50] * 26 + [20000, 30000]:  # 28 runs: two pages of 25
        api(page, "POST", f"{RULES}/{rule['id']}/execute/", {"inputs": {"claim": {"amount": amount}}})
    page.reload()
    page.get_by_role("button", name="Small triage").click()
    page.get_by_role("tab", name="Executions").click()

    rows = page.locator("#executions tbody tr[data-id]")
    check(rows).to_have_count(25)
    check(rows.first).to_contain_text("refer")  # newest first
    page.get_by_role("button", name="Load more").click()
    check(rows).to_have_count(28)
    check(page.get_by_role("button", name="Load more")).to_be_hidden()

    page.get_by_label("Decision").select_option("refer")
    page.get_by_role("button", name="Show").click()
    check(rows).to_have_count(2)
    check(page.locator("#executions caption")).to_contain_text("2 shown")
    Shots(page).take("executions")

    tomorrow = (datetime.datetime.now(datetime.UTC).date() + datetime.timedelta(days=1))
    page.get_by_label("From (UTC day)").fill(tomorrow.isoformat())
    page.get_by_role("button", name="Show").click()
    check(page.locator("#executions tbody")).to_contain_text("No executions match.")
    page.get_by_label("From (UTC day)").fill("")
    page.get_by_label("Decision").select_option("")
    page.get_by_label("Outcome").select_option("failed")
    page.get_by_role("button", name="Show").click()
    check(page.locator("#executions tbody")).to_contain_text("No executions match.")


def test_approvals_are_requested_and_decided_by_two_admins_when_four_eyes_are_on(
        live_service, page):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    live_service.add_user("ada@example.com", "Ada Park", "Lee Agency", role="admin")
    log_in(page, live_service)
    api(page, "PUT", f"{RULES}/settings/", {"four_eyes": True})
    rule = api(page, "POST", f"{RULES}/", {"source": TRIAGE, "kind": "triage"})
    page.reload()
    page.get_by_role("button", name="Small triage").click()
    page.get_by_role("tab", name="Approvals").click()
    check(page.locator("#four-eyes")).to_contain_text("Four eyes is on")
    check(page.get_by_label("Require four eyes in this workspace")).to_be_checked()
    page.get_by_role("button", name="Request approval").click()
    check(page.locator("#message")).to_contain_text("Approval of v1 requested")
    pending = page.locator("#approvals tbody tr.pending")
    check(pending).to_have_count(1)
    check(pending.get_by_role("button", name="Approve")).to_be_disabled()
    check(pending).to_contain_text("You requested it: another admin approves (four eyes).")

    # a second version, asked for too; Ada rejects that one and approves the first
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"source": TRIAGE.replace("10000", "9000")},
        **{"If-Match": '"1"'})
    api(page, "POST", f"{RULES}/{rule['id']}/approvals/", {"version": 2})
    page.get_by_role("button", name="Log out").click()
    log_in(page, live_service, "ada@example.com")
    page.get_by_role("button", name="Small triage").click()
    page.get_by_role("tab", name="Approvals").click()
    check(pending).to_have_count(2)
    check(page.get_by_label("Require four eyes (the owner changes this)")).to_be_disabled()
    second = pending.filter(has_text="v2")
    second.get_by_label("Comment on v2").fill("limit too low")
    second.get_by_role("button", name="Reject").click()
    check(page.locator("#message")).to_contain_text("Rejected the request for v2")
    check(pending).to_have_count(1)  # the table is read again: v2 is decided
    first = pending.filter(has_text="v1")
    check(first).to_contain_text("Ann Lee")
    first.get_by_label("Comment on v1").fill("looks right")
    first.get_by_role("button", name="Approve").click()
    check(page.locator("#message")).to_contain_text("Approved: v1 is published")
    check(page.locator("#rule-status")).to_contain_text("published v1")
    decided = page.locator("#approvals tbody tr")
    check(decided.filter(has_text="rejected")).to_contain_text("limit too low")
    check(decided.filter(has_text="approved")).to_contain_text("Ada Park")
    Shots(page).take("approvals")
    history = api(page, "GET", f"{RULES}/{rule['id']}/approvals/")["approvals"]
    assert [(a["version"], a["status"], a["comment"]) for a in history] == [
        (1, "approved", "looks right"), (2, "rejected", "limit too low")]


def test_a_saved_case_set_is_simulated_and_compared_when_chosen(live_service, page):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    log_in(page, live_service)
    rule = api(page, "POST", f"{RULES}/", {"source": TRIAGE, "kind": "triage"})
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"source": TRIAGE.replace("10000", "1000")},
        **{"If-Match": '"1"'})
    page.reload()
    page.get_by_role("button", name="Small triage").click()
    page.get_by_role("tab", name="Simulate").click()
    cases = "\n".join(json.dumps(c) for c in [
        {"id": "small", "inputs": {"claim": {"amount": 50}}, "expect": {"decision": "accept"}},
        {"id": "mid", "inputs": {"claim": {"amount": 5000}}, "expect": {"decision": "accept"}},
    ]) + "\n"
    page.get_by_label("Cases, JSON Lines", exact=False).fill(cases)
    page.get_by_label("New set").fill("regression")
    page.get_by_role("button", name="Save as new set").click()
    check(page.locator("#message")).to_contain_text('Saved the case set "regression" (2 cases)')
    check(page.locator("#case-set-status")).to_contain_text('run on the saved set "regression"')
    with page.expect_request(lambda r: r.url.endswith("/simulate/")) as sent:
        page.get_by_role("button", name="Simulate (the editor's source)").click()
    body = json.loads(sent.value.post_data)
    assert "case_set_id" in body and "cases" not in body
    check(page.locator("#simulation-summary")).to_contain_text("Expectations: 1 of 2 met")
    Shots(page).take("case-sets")

    # compare: the set loaded from the list, against version 1
    page.get_by_role("tab", name="Compare").click()
    page.get_by_label("Saved set").select_option(label="regression (2 cases, v1)")
    check(page.locator("#cases")).to_have_value(re.compile('"mid"'))
    page.get_by_label("Compare with").select_option("1")
    with page.expect_request(lambda r: r.url.endswith("/simulate/")) as sent:
        page.get_by_role("button", name="Compare").click()
    assert "case_set_id" in json.loads(sent.value.post_data)
    check(page.locator("#impact")).to_contain_text("mid")

    # an edit makes the box's cases run; Update saves them as the set's next version
    page.get_by_label("Cases, JSON Lines", exact=False).fill(cases.split("\n")[0] + "\n")
    check(page.locator("#case-set-status")).to_contain_text("differ")
    page.get_by_role("button", name="Update set").click()
    check(page.locator("#message")).to_contain_text('Updated the case set "regression" (v2)')
    sets = api(page, "GET", f"{RULES}/{rule['id']}/case-sets/")["case_sets"]
    assert [(s["name"], s["version"], s["case_count"]) for s in sets] == [("regression", 2, 1)]
