"""Fixtures of the rule studio tests: the whole service, members of workspaces, and rulesets."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from aiohttp import DummyCookieJar

from insureops.platform.app import Area, create_app
from insureops.platform.rules_studio import routes as studio_routes
from tests.platform.accounts.conftest import FakeClock
from tests.platform.mcp.conftest import add_key, own_tenant_database, save_database_url
from tests.platform.workspaces import Member, Tenancy, cheap_areas, start_tenancy

BASE = "/api/rules/rules"

TRIAGE = '''ruleset triage.small "Small triage"
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

test "a big claim is referred"
given claim = {"amount": 20000}
expect decision == "refer" and score == 10
end
'''

# two errors on two lines: an unknown name and a string added to the score
BROKEN = TRIAGE.replace("when claim.amount > LIMIT", "when claimz.amount > LIMIT").replace(
    "score += 10", 'score += "ten"')

# a warning: a rule that can never fire
WARNED = TRIAGE.replace('test "a small', '''rule never "Never fires"
when false
then
    decline "never"
end

test "a small''')

# the limit lowered to 1000: the second test still passes, a 5000 claim is now referred
LOWERED = TRIAGE.replace("const LIMIT = 10000", "const LIMIT = 1000")

# a test that fails: the expectation no longer matches
FAILING = TRIAGE.replace('expect decision == "refer" and score == 10',
                         'expect decision == "refer" and score == 99')


@dataclass
class Studio:
    tenancy: Tenancy

    @property
    def client(self):
        return self.tenancy.client

    async def create(self, member: Member, source: str = TRIAGE, **fields):
        return await self.client.post(f"{BASE}/", json={"source": source, **fields},
                                      headers=member.headers)

    async def created(self, member: Member, source: str = TRIAGE, **fields) -> dict:
        response = await self.create(member, source, **fields)
        assert response.status == 201, await response.text()
        return await response.json()

    async def patch(self, member: Member, rule_id: str, headers: dict | None = None, **body):
        return await self.client.patch(f"{BASE}/{rule_id}/", json=body,
                                       headers={**member.headers, **(headers or {})})

    async def get(self, member: Member, path: str, **params):
        return await self.client.get(f"{BASE}/{path}", params=params, headers=member.headers)


CLIENT_CHECK = '''ruleset clients.check "Client check"
input client: Client
default decision accept

rule no_city "Client without a city"
when client.city is null
then
    score += 5
    refer "No city on file"
end

test "a client with a city is accepted"
given client = {"name": "Ann", "city": "Springfield"}
expect decision == "accept"
end
'''


@pytest.fixture
def settings(settings):
    """Loopback tenant databases allowed: the test PostgreSQL is on 127.0.0.1."""
    return settings.model_copy(update={"tenant_database_allowed_networks": ("127.0.0.1/32",)})


@pytest.fixture
async def studio(aiohttp_client, settings) -> Studio:
    return Studio(await start_tenancy(aiohttp_client, settings, FakeClock()))


async def start_studio(aiohttp_client, settings, **studio_options) -> Studio:
    """The service with the rule studio made by `create_app(**studio_options)`."""
    def studio_app():
        return studio_routes.create_app(**studio_options)
    areas = tuple(Area(a.prefix, studio_app) if a.prefix == "/api/rules" else a
                  for a in cheap_areas())
    clock = FakeClock()
    client = await aiohttp_client(create_app(settings, clock=clock, areas=areas),
                                  cookie_jar=DummyCookieJar())
    return Studio(Tenancy(client, clock))


@pytest.fixture
async def owner(studio) -> Member:
    return await studio.tenancy.owner("ann@example.com", "Lee Agency")


@pytest.fixture
async def tenant_database(studio, owner, test_databases, settings) -> str:
    """The owner's workspace with its own prepared tenant database; its URL."""
    url = own_tenant_database(test_databases, settings, owner.workspace_id)
    await save_database_url(studio.client, owner.workspace_id, url)
    return url


async def new_client(studio, member, **fields) -> str:
    """A new client in the member's workspace's tenant database (through the MCP API); uuid."""
    key, _ = await add_key(studio.client, member.workspace_id)
    response = await studio.client.post("/api/v2/mcp/clients/", json={"name": "Ann", **fields},
                                        headers={"Authorization": f"Bearer {key}"})
    assert response.status == 201, await response.text()
    return (await response.json())["uuid"]
