"""Issue 31/34: the studio page's "Bindings & runs" tab in Chromium: an admin binds the rule to
record writes, pauses it, starts a dry run over a small book (the workspace's embedded tenant
database, jobs run by the serve process), follows its progress to the end and reads the
summary and the impact against the published version."""

from __future__ import annotations

import json

import pytest

from tests.platform.rules_studio.conftest import CLIENT_CHECK
from tests.platform.rules_studio.work_helpers import CITY_DATES
from tests.platform.studio_web.conftest import Shots, log_in
from tests.platform.studio_web.test_features import RULES, add_key, api, expect

pytestmark = pytest.mark.browser

STRICTER = CLIENT_CHECK.replace("when client.city is null",
                                'when client.city is null or client.city == "Shelbyville"')


def add_clients(page, live_service, workspace_id: str, cities: list[str | None]) -> None:
    key = live_service.run(add_key(live_service.app, workspace_id))
    for number, city in enumerate(cities):
        made = page.request.post(
            f"{live_service.url}/api/v2/mcp/clients/",
            data=json.dumps({"name": f"Client {number}", **({"city": city} if city else {})}),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        assert made.status == 201, made.text()


def test_a_binding_is_made_and_a_dry_run_followed_to_its_summary(live_service, page):
    check = expect()
    workspace_id = live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    add_clients(page, live_service, workspace_id,
                [None, "Springfield", "Shelbyville", "Springfield"] * 3)  # 12 clients
    log_in(page, live_service)
    rule = api(page, "POST", f"{RULES}/", {"source": CLIENT_CHECK, "kind": "triage"})
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"published_version": 1})
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"source": STRICTER}, **{"If-Match": '"1"'})
    page.reload()
    page.get_by_role("button", name="Client check").click()
    page.get_by_role("tab", name="Bindings & runs").click()

    bindings = page.locator("#bindings tbody")
    check(bindings).to_contain_text("No bindings")
    form = page.locator("#bind-form")
    form.get_by_label("Record type").select_option("client")
    form.get_by_label("updated").uncheck()
    form.get_by_label("Where (optional)").fill('client.name != "Bo"')
    form.get_by_role("button", name="Bind").click()
    check(page.locator("#message")).to_contain_text("Bound to client records (created)")
    row = bindings.locator("tr[data-id]")
    check(row).to_have_count(1)
    check(row).to_contain_text('client.name != "Bo"')
    check(row).to_contain_text("active")
    row.get_by_role("button", name="Pause the client binding").click()
    check(row).to_contain_text("paused")
    made = api(page, "GET", "/api/rules/bindings/")["items"]
    assert [(b["record_type"], b["on"], b["status"]) for b in made] == [
        ("client", ["created"], "paused")]

    runs = page.locator("#run-form")
    runs.get_by_label("Record type").select_option("client")
    runs.get_by_label("Version").select_option("2")
    runs.get_by_label("Mode").select_option("dry_run")
    runs.get_by_role("button", name="Start run").click()
    check(page.locator("#message")).to_contain_text("Started a dry run of v2 over the client records")
    progress = page.locator("#run-progress")
    check(progress).to_have_attribute("aria-live", "polite")
    check(progress).to_contain_text("Run completed · 12 of 12 records (100%)", timeout=30_000)
    check(page.locator("#run-summary")).to_contain_text("12 records evaluated: ")
    check(page.locator("#run-summary")).to_contain_text("refer 6")
    check(page.locator("#impact-summary")).to_contain_text("Against version 1: 3 of 12 decisions change")
    moved = page.locator("#impact tbody tr.moved")
    check(moved).to_contain_text("accept")
    check(page.locator("#run-cancel")).to_have_count(0)
    check(page.locator("#runs tbody tr[data-id]")).to_contain_text("completed")
    Shots(page).take("bindings-runs")
    listed = api(page, "GET", f"/api/rules/runs/?rule_id={rule['id']}")["items"]
    assert [(r["status"], r["mode"], r["progress"]["done"]) for r in listed] == [
        ("completed", "dry_run", 12)]


@pytest.mark.live_settings(jobs_in_serve=False)  # no process runs jobs: the run stays queued
def test_a_queued_run_is_followed_every_second_and_cancelled(live_service, page):
    check = expect()
    workspace_id = live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    add_clients(page, live_service, workspace_id, [None, "Springfield"])
    log_in(page, live_service)
    rule = api(page, "POST", f"{RULES}/", {"source": CLIENT_CHECK, "kind": "triage"})
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"published_version": 1})
    page.reload()
    page.get_by_role("button", name="Client check").click()
    page.get_by_role("tab", name="Bindings & runs").click()
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if r.method == "GET"
            and "/api/rules/runs/" in r.url and "rule_id" not in r.url else None)
    page.locator("#run-form").get_by_label("Record type").select_option("client")
    page.locator("#run-form").get_by_role("button", name="Start run").click()
    progress = page.locator("#run-progress")
    check(progress).to_contain_text("Run queued · 0 of ? records")
    page.wait_for_timeout(2500)
    assert len(reads) >= 2, reads  # read again (about every second) while queued
    page.get_by_role("button", name="Cancel run").click()
    check(page.locator("#message")).to_contain_text("The run is cancelled.")
    check(progress).to_contain_text("Run cancelled")
    check(page.get_by_role("button", name="Cancel run")).to_have_count(0)
    settled = len(reads)
    page.wait_for_timeout(1500)
    assert len(reads) == settled  # a finished run is not read again
    listed = api(page, "GET", f"/api/rules/runs/?rule_id={rule['id']}")["items"]
    assert [r["status"] for r in listed] == ["cancelled"]



def test_a_failed_record_is_shown_with_its_error_and_retried_once_fixed(live_service, page):
    check = expect()
    workspace_id = live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    log_in(page, live_service)
    rule = api(page, "POST", f"{RULES}/", {"source": CITY_DATES, "kind": "triage"})
    api(page, "PATCH", f"{RULES}/{rule['id']}/", {"published_version": 1})
    api(page, "POST", "/api/rules/bindings/", {"rule_id": rule["id"], "record_type": "client",
                                               "on": ["created"]})
    key = live_service.run(add_key(live_service.app, workspace_id))
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    made = page.request.post(f"{live_service.url}/api/v2/mcp/clients/", headers=headers,
                             data=json.dumps({"name": "Odd", "city": "Springfield"}))
    assert made.status == 201, made.text()
    client = made.json()
    for _ in range(240):  # the binding's failure lands within seconds of the write
        if api(page, "GET", "/api/rules/bindings/")["items"][0]["errors"]:
            break
        page.wait_for_timeout(250)
    else:
        pytest.fail("the binding recorded no failure within a minute")
    page.reload()
    page.get_by_role("button", name="Client dates").click()
    page.get_by_role("tab", name="Bindings & runs").click()

    row = page.locator("#bindings tbody tr[data-id]")
    row.get_by_role("button", name="Show the failed records of the client binding").click()
    failures = page.locator("#binding-failures tbody tr[data-record]")
    check(failures).to_have_count(1)
    check(failures).to_contain_text("Springfield")
    retry = failures.get_by_role("button", name=f"Retry client {failures.get_attribute('data-record')}")
    retry.click()
    check(page.locator("#message")).to_contain_text("it fails again")
    check(failures).to_have_count(1)

    fixed = page.request.patch(f"{live_service.url}/api/v2/mcp/clients/{client['uuid']}/update/",
                               headers=headers, data=json.dumps({"city": "2020-05-05"}))
    assert fixed.status == 200, fixed.text()
    retry.click()
    check(page.locator("#message")).to_contain_text("refer, 1 effect written; the failure is resolved")
    check(page.locator("#binding-failures tbody")).to_contain_text("No failed records.")
    check(row).to_contain_text("0 errors")
    Shots(page).take("binding-failures")
