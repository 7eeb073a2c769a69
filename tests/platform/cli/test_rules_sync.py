"""Issue 34: `insureops rules pull` / `push` against the running service (a real HTTP server on
a free port, the whole app): pull, edit, push, a stale push refused with a readable conflict,
and a folder's cases file kept as the rule's `default` case set."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from insureops.platform.cli import main
from insureops.platform.cli.rules_files import MANIFEST
from tests.platform.rules_studio.conftest import LOWERED, TRIAGE

SYNC = "/api/rules/sync/rules"
# the client's side is under test: the routes' own tests run on both engines
pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


async def _run(*args: str, env: dict[str, str] | None = None):
    """The command in a thread: the service answers on this test's event loop meanwhile."""
    return await asyncio.to_thread(CliRunner().invoke, main, list(args), env=env or {})


async def _key(studio, member) -> str:
    response = await studio.client.post("/api/v2/settings/api-keys/", json={"name": "git"},
                                        headers=member.headers)
    assert response.status == 201, await response.text()
    return (await response.json())["key"]


async def test_pull_edit_push_and_a_stale_push_is_refused_when_someone_saved_meanwhile(
        studio, owner, tmp_path: Path):
    url = str(studio.client.make_url("/"))
    key = await _key(studio, owner)
    rule = await studio.created(owner)
    folder = tmp_path / "rules"

    pulled = await _run("rules", "pull", str(folder), "--url", url, "--key", key)
    assert pulled.exit_code == 0, pulled.output
    rules_file = folder / "triage.small.rules"
    assert rules_file.read_text() == TRIAGE
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["rulesets"]["triage.small.rules"]["rule"]["id"] == rule["id"]
    assert manifest["rulesets"]["triage.small.rules"]["rule"]["version"] == 1

    rules_file.write_text(LOWERED)
    (folder / "triage.small.cases.jsonl").write_text(
        '{"id": "mid", "inputs": {"claim": {"amount": 5000}}}\n')
    env = {"INSUREOPS_URL": url, "INSUREOPS_API_KEY": key}
    pushed = await _run("rules", "push", str(folder), env=env)
    assert pushed.exit_code == 0, pushed.output
    assert "pushed triage.small.rules (version 2)" in pushed.output
    saved = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert saved["current_version"] == 2 and saved["version"]["source"] == LOWERED
    assert saved["version"]["author_id"] == owner.user_id
    sets = await (await studio.get(owner, f"{rule['id']}/case-sets/")).json()
    assert [(s["name"], s["case_count"]) for s in sets["case_sets"]] == [("default", 1)]

    again = await _run("rules", "push", str(folder), env=env)
    assert again.exit_code == 0 and "0 file(s) pushed" in again.output

    # someone saves version 3 on the page; this folder is still based on version 2
    response = await studio.patch(owner, rule["id"], {"If-Match": '"2"'},
                                  source=TRIAGE.replace("10000", "2500"))
    assert response.status == 200
    rules_file.write_text(TRIAGE.replace("10000", "7500"))
    stale = await _run("rules", "push", str(folder), env=env)
    assert stale.exit_code == 1
    assert "conflict: triage.small.rules was not pushed" in stale.output
    assert "based on version 2" in stale.output and "version 3 was saved" in stale.output
    assert "insureops rules pull --force" in stale.output
    after = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert after["current_version"] == 3 and "2500" in after["version"]["source"]

    kept = await _run("rules", "pull", str(folder), env=env)
    assert kept.exit_code == 1 and "kept triage.small.rules" in kept.output
    assert "7500" in rules_file.read_text()
    forced = await _run("rules", "pull", str(folder), "--force", env=env)
    assert forced.exit_code == 0, forced.output
    assert "2500" in rules_file.read_text()
    assert json.loads((folder / MANIFEST).read_text())["rulesets"]["triage.small.rules"][
        "rule"]["version"] == 3


async def test_push_creates_new_rulesets_and_pull_published_writes_the_published_versions(
        studio, owner, tmp_path: Path):
    url = str(studio.client.make_url("/"))
    key = await _key(studio, owner)
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "triage.small.rules").write_text(TRIAGE)
    created = await _run("rules", "push", str(folder), "--url", url, "--key", key)
    assert created.exit_code == 0 and "created triage.small.rules" in created.output
    rules = await (await studio.client.get(f"{SYNC}/", headers={
        "Authorization": f"Bearer {key}"})).json()
    rule_id = rules["items"][0]["id"]
    await studio.patch(owner, rule_id, published_version=1)
    (folder / "triage.small.rules").write_text(LOWERED)
    assert (await _run("rules", "push", str(folder), "--url", url, "--key", key)).exit_code == 0

    snapshot = tmp_path / "published"
    pulled = await _run("rules", "pull", str(snapshot), "--published", "--url", url,
                        "--key", key)
    assert pulled.exit_code == 0, pulled.output
    assert (snapshot / "triage.small.rules").read_text() == TRIAGE
    assert not (snapshot / MANIFEST).exists()


async def test_push_says_what_to_do_when_the_source_does_not_check_or_the_key_is_wrong(
        studio, owner, tmp_path: Path):
    url = str(studio.client.make_url("/"))
    key = await _key(studio, owner)
    (tmp_path / "broken.rules").write_text(TRIAGE.replace("claim.amount >", "claimz.amount >"))
    refused = await _run("rules", "push", str(tmp_path), "--url", url, "--key", key)
    assert refused.exit_code == 1
    assert "broken.rules: not pushed, the ruleset does not check" in refused.output
    assert "error[E" in refused.output
    wrong = await _run("rules", "pull", str(tmp_path / "x"), "--url", url,
                       "--key", "iops_" + "x" * 40)
    assert wrong.exit_code == 1 and "invalid_api_key" in wrong.output
    missing = await _run("rules", "pull", str(tmp_path / "x"))
    assert missing.exit_code == 2 and "INSUREOPS_API_KEY" in missing.output


async def test_pull_follows_a_rename_when_the_old_file_was_not_edited(studio, owner, tmp_path):
    url = str(studio.client.make_url("/"))
    key = await _key(studio, owner)
    rule = await studio.created(owner)
    folder = tmp_path / "rules"
    assert (await _run("rules", "pull", str(folder), "--url", url, "--key", key)).exit_code == 0
    renamed = TRIAGE.replace("ruleset triage.small", "ruleset triage.claims")
    assert (await studio.patch(owner, rule["id"], source=renamed)).status == 200
    pulled = await _run("rules", "pull", str(folder), "--url", url, "--key", key)
    assert pulled.exit_code == 0, pulled.output
    assert "removed triage.small.rules (renamed in the workspace)" in pulled.output
    assert sorted(p.name for p in folder.iterdir()) == [MANIFEST, "triage.claims.rules"]
    assert list(json.loads((folder / MANIFEST).read_text())["rulesets"]) == [
        "triage.claims.rules"]
