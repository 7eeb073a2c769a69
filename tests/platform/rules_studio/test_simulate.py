"""POST /rules/simulate/: the CLI's results, summary, expectations and impact, bounded; which
saved versions and case sets it reads and what it refuses is the fast tier's (test_service.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from insureops.engine.inputs import jsonio
from insureops.platform.cli import main
from tests.platform.rules_studio.conftest import BASE, BROKEN, LOWERED, TRIAGE, start_studio

CASES = [
    {"id": "small", "inputs": {"claim": {"amount": 50}}, "expect": {"decision": "accept"}},
    {"id": "mid", "inputs": {"claim": {"amount": 5000}}, "expect": {"decision": "refer"}},
    {"id": "big", "inputs": {"claim": {"amount": 20000.5}}, "expect": {"score": 10}},
    {"id": "none", "inputs": {}, "expect": {"error": "missing_input"}},
]


async def simulate(studio, member, **body):
    return await studio.client.post(f"{BASE}/simulate/", data=json.dumps(body),
                                    headers={**member.headers,
                                             "Content-Type": "application/json"})


def cli_lines(tmp_path, source: str, cases: list, *args: str) -> str:
    rules = tmp_path / "r.rules"
    rules.write_text(source)
    lines = tmp_path / "cases.jsonl"
    lines.write_text("".join(json.dumps(case) + "\n" for case in cases))
    result = CliRunner().invoke(main, ["rules", *args, str(rules), "--cases", str(lines),
                                       "--as-of", "2027-01-15"])
    return result.stdout


async def test_simulate_gives_the_clis_results_and_checks_expect_when_given_a_source(
        studio, owner, tmp_path):
    response = await simulate(studio, owner, source=TRIAGE, cases=CASES, as_of="2027-01-15")
    assert response.status == 200, await response.text()
    body = jsonio.loads(await response.text())
    cli = [jsonio.loads(line) for line in cli_lines(tmp_path, TRIAGE, CASES, "simulate")
           .splitlines() if line.startswith("{")]
    assert [{k: v for k, v in r.items() if k != "expect"} for r in body["results"]] == [
        {k: v for k, v in line.items() if k != "expect"} for line in cli]
    assert [r["expect"]["met"] for r in body["results"]] == [True, False, True, True]
    assert body["results"][1]["expect"]["mismatches"] == [
        {"field": "decision", "expected": "refer", "actual": "accept"}]
    assert body["expectations"] == {"checked": 4, "met": 3, "not_met": 1}
    summary = body["summary"]
    assert (summary["cases"], summary["evaluated"], summary["errors"]) == (
        4, 3, {"missing_input": 1})
    assert summary["decisions"] == {"accept": 2, "refer": 1}
    assert body["impact"] is None


async def test_simulate_adds_the_clis_impact_diff_when_a_baseline_version_is_given(
        studio, owner, tmp_path):
    rule = await studio.created(owner)
    await studio.patch(owner, rule["id"], source=LOWERED)
    response = await simulate(studio, owner, rule_id=rule["id"], cases=CASES,
                              baseline={"version": 1}, as_of="2027-01-15")
    body = jsonio.loads(await response.text())
    (tmp_path / "old.rules").write_text(TRIAGE)
    (tmp_path / "new.rules").write_text(LOWERED)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    cli = CliRunner().invoke(main, ["rules", "diff", str(tmp_path / "old.rules"),
                                    str(tmp_path / "new.rules"), "--cases",
                                    str(tmp_path / "cases.jsonl"), "--json"])
    assert body["impact"] == jsonio.loads(cli.stdout)
    assert body["impact"]["transitions"][0] == {"from": "accept", "to": "refer", "count": 1,
                                                "examples": ["mid"]}


async def test_simulate_runs_an_older_version_when_rule_id_and_version_are_given(studio, owner):
    rule = await studio.created(owner)
    await studio.patch(owner, rule["id"], source=LOWERED)
    latest = jsonio.loads(await (await simulate(studio, owner, rule_id=rule["id"],
                                                cases=CASES[1:2])).text())
    first = jsonio.loads(await (await simulate(studio, owner, rule_id=rule["id"], version=1,
                                               cases=CASES[1:2])).text())
    assert latest["results"][0]["result"]["decision"] == "refer"
    assert first["results"][0]["result"]["decision"] == "accept"


async def test_simulate_adds_traces_when_explain_is_set(studio, owner):
    body = jsonio.loads(await (await simulate(studio, owner, source=TRIAGE, cases=CASES[:1],
                                              explain=True)).text())
    assert body["results"][0]["result"]["trace"]


async def test_simulate_is_413_simulation_too_large_naming_the_cli_when_over_10000_cases(
        studio, owner):  # named by docs/security.md: the bound through the route
    response = await simulate(studio, owner, source=TRIAGE, cases=[CASES[0]] * 10_001)
    assert response.status == 413
    error = (await response.json())["error"]
    assert error["code"] == "simulation_too_large"
    assert "insureops rules simulate" in error["message"]


async def test_simulate_is_422_simulation_too_slow_when_past_the_time_budget(
        aiohttp_client, settings):
    studio = await start_studio(aiohttp_client, settings, simulation_budget=0.0)
    owner = await studio.tenancy.owner("ann@example.com")
    response = await simulate(studio, owner, source=TRIAGE, cases=[CASES[0]] * 200)
    assert response.status == 422
    error = (await response.json())["error"]
    assert error["code"] == "simulation_too_slow" and "insureops rules" in error["message"]


async def test_simulate_is_400_rule_invalid_when_the_source_has_errors(studio, owner):
    response = await simulate(studio, owner, source=BROKEN, cases=CASES)
    assert response.status == 400
    assert len((await response.json())["error"]["details"]) == 2


async def test_simulate_is_400_validation_error_when_source_and_rule_id_are_both_given(
        studio, owner):
    rule = await studio.created(owner)
    response = await simulate(studio, owner, source=TRIAGE, rule_id=rule["id"], cases=CASES)
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"


async def test_simulate_is_400_validation_error_when_as_of_is_not_yyyy_mm_dd(studio, owner):
    # pydantic alone read 20250102 as Unix seconds (1970-08-23) and "1735776000" likewise
    for as_of in (20250102, "1735776000", "2025-W01-4", "20250102"):
        response = await simulate(studio, owner, source=TRIAGE, cases=CASES, as_of=as_of)
        assert response.status == 400, as_of
        assert (await response.json())["error"]["code"] == "validation_error"
    case = {**CASES[0], "as_of": 20250102}
    response = await simulate(studio, owner, source=TRIAGE, cases=[case])
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"


def _doubled_reasons(rules: int) -> str:
    """A ruleset whose every rule gives a reason of half a million characters (issue 29: a 6.5 KB
    simulate answered 393 MB)."""
    consts = "\n".join(f"const S{i} = S{i - 1} + S{i - 1}" for i in range(1, 20))
    fired = "\n".join(f'rule r{i} "r"\nwhen true\nthen\n    refer "{{S19}}"\nend\n'
                      for i in range(rules))
    return (f'ruleset big.reasons "x"\ninput c: Any\ndefault decision accept\n'
            f'const S0 = "x"\n{consts}\n\n{fired}')


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # no database in the bound
async def test_a_case_whose_result_outgrows_the_engine_bound_is_an_error_naming_it(studio,
                                                                                   owner):
    response = await simulate(studio, owner, source=_doubled_reasons(3),
                              cases=[{"id": "one", "inputs": {"c": {}}}])
    assert response.status == 200
    (case,) = (await response.json())["results"]
    assert case["error"]["code"] == "limit_result_size"
    assert "Limits.max_result_size" in case["error"]["message"]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # no database in the bound
async def test_simulate_is_413_naming_the_bound_when_its_results_grow_past_it(studio, owner):
    # each case's result (one reason of half a million characters) is within the engine's
    # bound; seventy of them are past the response's
    response = await simulate(studio, owner, source=_doubled_reasons(1),
                              cases=[{"id": f"c{n}", "inputs": {"c": {}}} for n in range(70)])
    assert response.status == 413
    error = (await response.json())["error"]
    assert error["code"] == "simulation_too_large"
    assert "32 million characters" in error["message"] and "insureops rules" in error["message"]
