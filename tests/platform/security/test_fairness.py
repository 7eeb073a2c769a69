"""One workspace's heavy work does not slow another workspace's requests (issue 28, part 1).

Rulesets are code their authors control. One case is bounded by the engine's work budget (a
rule that looks every item up in the whole list of 40,000 stops at `limit_steps` in well under
a second, where it once ran for minutes); a simulate of many cases, each just under that
budget, runs for minutes. Sent four at once by one workspace, two are admitted to the rules
workers (the workspace's share) and two are refused with 429 workspace_busy; meanwhile another
workspace logs in (production argon2id parameters) and reads its tenant database through the
MCP v2 API as fast as on an idle service, and the admitted simulates are stopped at their
budget.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import DummyCookieJar
from sqlalchemy import update

from insureops.platform.app import AREAS, Area, create_app
from insureops.platform.identity import Passwords, User
from insureops.platform.keys import HEAVY_WORK
from insureops.platform.rules_studio import routes as studio_routes
from tests.platform.accounts.conftest import FakeClock
from tests.platform.mcp.conftest import add_key
from tests.platform.workspaces import PASSWORD, Tenancy, cheap_areas

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)

SCAN = '''ruleset attack.scan "Every item looked up in the whole list"
input c: Any
default decision accept

rule seen "Seen again"
when count(x in c.items where x in c.items) > 0
then
    refer "seen"
end
'''
# each case just under the default work budget (999 items, each looked up in all 999)
HOSTILE_CASES = [{"id": f"c{n}", "inputs": {"c": {"items": list(range(999))}}}
                 for n in range(200)]
QUADRATIC_CASE = {"id": "one", "inputs": {"c": {"items": list(range(40_000))}}}
BUDGET = 4.0  # seconds of simulation (the hard deadline is one more)


@pytest.fixture
def settings(settings, tmp_path):
    return settings.model_copy(update={"tenant_sqlite_directory": tmp_path / "tenants",
                                       "rules_workers": 2, "rules_jobs_per_workspace": 2})


async def _service(aiohttp_client, settings) -> Tenancy:
    """The whole service; the accounts area with production password hashing."""
    def studio_app():
        return studio_routes.create_app(simulation_budget=BUDGET)
    production = {"/api/auth": next(a for a in AREAS if a.prefix == "/api/auth").create_app,
                  "/api/rules": studio_app}
    areas = tuple(Area(a.prefix, production.get(a.prefix, a.create_app)) for a in cheap_areas())
    clock = FakeClock()
    client = await aiohttp_client(create_app(settings, clock=clock, areas=areas),
                                  cookie_jar=DummyCookieJar())
    return Tenancy(client, clock)


async def _simulate(tenancy: Tenancy, member, cases=HOSTILE_CASES):
    response = await tenancy.client.post("/api/rules/rules/simulate/", headers=member.headers,
                                         json={"source": SCAN, "cases": cases})
    return response.status, response.headers.get("Retry-After"), await response.json()


async def _timed(request) -> float:
    started = time.perf_counter()
    response = await request
    assert response.status in (200, 201), await response.text()
    await response.read()
    return time.perf_counter() - started


async def test_another_workspace_is_served_fast_when_one_workspace_runs_worst_case_simulates(
        aiohttp_client, settings):
    tenancy = await _service(aiohttp_client, settings)
    attacker = await tenancy.owner("mallory@example.com", "Attacker")
    victim = await tenancy.owner("victor@example.com", "Victim")
    async with tenancy.database.unit_of_work() as uow:  # a real cost of login
        await uow.session.execute(update(User).where(User.id == victim.user_id).values(
            password_hash=Passwords().hash(PASSWORD)))
    key, _ = await add_key(tenancy.client, victim.workspace_id)
    api = {"Authorization": f"Bearer {key}"}
    created = await tenancy.client.post("/api/v2/mcp/clients/", json={"name": "Ann"},
                                        headers=api)
    client_path = f"/api/v2/mcp/clients/{(await created.json())['uuid']}/"
    login_path, credentials = "/api/auth/login/", {"email": victim.email, "password": PASSWORD}
    idle_login = min([await _timed(tenancy.client.post(login_path, json=credentials))
                      for _ in range(2)])
    idle = sorted([await _timed(tenancy.client.get(client_path, headers=api))
                   for _ in range(50)])

    attacks = [asyncio.create_task(_simulate(tenancy, attacker)) for _ in range(4)]
    heavy = tenancy.client.app[HEAVY_WORK]
    for _ in range(600):  # the workers start on first use
        if heavy.gate.running == 2:
            break
        await asyncio.sleep(0.01)
    assert heavy.gate.running == 2
    await asyncio.sleep(0.3)  # both workers deep in the scan

    login = await _timed(tenancy.client.post(login_path, json=credentials))
    reads = sorted([await _timed(tenancy.client.get(client_path, headers=api))
                    for _ in range(50)])
    assert heavy.gate.running == 2, "the simulates ended before the measurement did"
    p99, idle_p99 = reads[int(0.99 * len(reads))], idle[int(0.99 * len(idle))]
    # The targets (login < 1 s, p99 < 100 ms) hold on a quiet machine (bench/bench_fairness.py,
    # docs/performance.md); beside the other test worker the same proof is "no worse than
    # idle", within the noise of a shared 2-core machine (before the fix: 20x).
    assert login < 1.0 or login < 2 * idle_login, \
        f"login took {login:.3f} s under attack, {idle_login:.3f} s idle"
    assert p99 < 0.1 or p99 < 3 * idle_p99, \
        f"tenant API p99 {p99 * 1000:.1f} ms under attack, {idle_p99 * 1000:.1f} ms idle"

    outcomes = await asyncio.gather(*attacks)
    refused = [o for o in outcomes if o[0] == 429]
    assert len(refused) == 2
    assert all(o[1] and o[2]["error"]["code"] == "workspace_busy" for o in refused)
    stopped = [o for o in outcomes if o[0] == 422]
    assert len(stopped) == 2
    assert all(o[2]["error"]["code"] == "simulation_too_slow" for o in stopped)


async def test_a_simulate_is_stopped_at_its_budget_when_its_cases_run_for_minutes(
        aiohttp_client, settings):
    tenancy = await _service(aiohttp_client, settings)
    attacker = await tenancy.owner("mallory@example.com", "Attacker")
    started = time.monotonic()
    status, _, body = await _simulate(tenancy, attacker)
    assert status == 422 and body["error"]["code"] == "simulation_too_slow"
    assert "insureops rules simulate" in body["error"]["message"]
    assert time.monotonic() - started < BUDGET + 4  # the deadline, plus a worker's start


async def test_a_quadratic_case_stops_at_the_work_budget_while_health_answers_at_once(
        aiohttp_client, settings):
    tenancy = await _service(aiohttp_client, settings)
    attacker = await tenancy.owner("mallory@example.com", "Attacker")
    started = time.monotonic()
    simulate = asyncio.create_task(_simulate(tenancy, attacker, [QUADRATIC_CASE]))
    health = await _timed(tenancy.client.get("/api/health/"))
    status, _, body = await simulate
    assert time.monotonic() - started < 5
    assert health < 0.1
    assert status == 200
    (case,) = body["results"]
    assert case["error"]["code"] == "limit_steps"
    assert "Limits.max_steps" in case["error"]["message"]


async def test_a_costly_check_is_422_naming_its_bound_while_health_answers_at_once(
        aiohttp_client, settings):
    settings = settings.model_copy(update={"rules_check_seconds": 0.5})
    tenancy = await _service(aiohttp_client, settings)
    member = await tenancy.owner("mallory@example.com", "Attacker")
    # seconds of parsing and checking: 3,000 constants and 3,000 rules, each misspelling one
    consts = "\n".join(f"const LIMIT_NUMBER_{i} = {i}" for i in range(3000))
    rules = "\n".join(f'rule r{i} "r"\nwhen LIMT_NUMBER_{i} > 0\nthen\n    refer "x"\nend\n'
                      for i in range(3000))
    source = f'ruleset attack.check "x"\ninput c: Any\ndefault decision accept\n{consts}\n\n{rules}'
    check = asyncio.create_task(tenancy.client.post(
        "/api/rules/rules/check/", json={"source": source}, headers=member.headers))
    heavy = tenancy.client.app[HEAVY_WORK]
    for _ in range(600):
        if heavy.gate.running:
            break
        await asyncio.sleep(0.01)
    health = await _timed(tenancy.client.get("/api/health/"))
    response = await check
    assert response.status == 422
    error = (await response.json())["error"]
    assert error["code"] == "work_budget_exceeded"
    assert "INSUREOPS_RULES_CHECK_SECONDS" in error["message"]
    assert "insureops rules check" in error["message"]
    assert health < 0.1
