"""Two workspaces, A and B, on the whole service: set up once per test module and backend.

The authorization matrix and the tenant isolation sweep send hundreds of requests each; building
the service, its users, keys, tokens and B's objects per test would cost most of their time. So a
module-scoped `world` holds it all, on SQLite (each workspace with its embedded SQLite tenant
database) and on PostgreSQL (each with a tenant database of its own, a schema).
"""

from __future__ import annotations

import datetime
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import pytest
import pytest_asyncio
import sqlalchemy as sa
from aiohttp import DummyCookieJar
from aiohttp.test_utils import TestClient, TestServer
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine, update

from insureops.carrier_matching import load_market
from insureops.platform.accounts.credentials import hash_session_id
from insureops.platform.accounts.models import Session
from insureops.platform.app import create_app
from insureops.platform.auth.requirements import Scope
from insureops.platform.carrier_finder.market.loading import store_market
from insureops.platform.config import Settings
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.team.invitations import hash_token
from insureops.platform.team.models import Invitation
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.platform.tenancy.workspaces import embedded_database_url
from insureops.platform.webhooks.models import WebhookDelivery
from insureops.platform.webhooks.outbox import publish
from insureops.schema.sql.tables import sa_table
from tests.carrier_matching.market_texts import market_texts
from tests.conftest import BACKENDS, require_postgres
from tests.databases import Template
from tests.platform.accounts.conftest import FakeClock
from tests.platform.mcp.conftest import add_key, save_database_url
from tests.platform.rules_studio.conftest import TRIAGE
from tests.platform.workspaces import Member, Tenancy, cheap_areas

IDP_KEY = ec.generate_private_key(ec.SECP256R1())
FORGER_KEY = ec.generate_private_key(ec.SECP256R1())
IDP_ISSUER, IDP_AUDIENCE = "https://idp.security.test/", "insureops-security"
PAST = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
TOKEN = "invitation-token-of-the-matrix"  # the known token of B's revoked invitation


@dataclass
class Side:
    """One workspace: members of each role, API keys, its extension user and tenant database."""

    owner: Member
    admin: Member
    member: Member
    key: str  # read and write
    read_key: str
    subject: str  # the identity-provider user of its browser extension
    tenant_url: str | None  # its own tenant database (PostgreSQL); None: the embedded one

    @property
    def tenant_id(self) -> str:
        return self.owner.workspace_id


@dataclass
class World:
    backend: str
    settings: Settings
    tenancy: Tenancy
    a: Side
    b: Side
    credentials: dict[str, dict[str, str]] = field(default_factory=dict)
    objects: dict[str, str] = field(default_factory=dict)  # B's, by object key (MAKERS)
    engines: dict[str, Engine] = field(default_factory=dict)  # tenant databases, read directly
    tables: dict[str, list[str]] = field(default_factory=dict)  # their names, read once
    platform_url: str | None = None  # the platform database's sync URL, for reading it directly

    @property
    def client(self) -> TestClient:
        return self.tenancy.client

    @property
    def clock(self) -> FakeClock:
        return self.tenancy.clock  # type: ignore[return-value]

    def token(self, subject: str, *, key=IDP_KEY, lifetime: int = 3600) -> str:
        now = int(self.clock())
        return jwt.encode(
            {
                "iss": IDP_ISSUER,
                "aud": IDP_AUDIENCE,
                "sub": subject,
                "iat": now - 7200,
                "exp": now + lifetime,
            },
            key,
            algorithm="ES256",
        )

    def bearer(self, credential: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {credential}"}

    def tenant_engine(self, side: Side) -> Engine:
        """An engine of `side`'s own tenant database, for reading it directly."""
        url = side.tenant_url or embedded_database_url(
            self.settings.tenant_sqlite_root, side.tenant_id
        )
        if url not in self.engines:
            self.engines[url] = create_tenant_engine(url)
        return self.engines[url]

    def platform_engine(self) -> Engine:
        """A sync engine of the platform database, for reading it directly (a read through the
        service's async engine costs a thread hop per statement)."""
        assert self.platform_url is not None
        if self.platform_url not in self.engines:
            self.engines[self.platform_url] = sa.create_engine(self.platform_url)
        return self.engines[self.platform_url]

    async def object(self, key: str) -> str:
        """B's object of kind `key` ("rules/{rule_id}"), made on first use (MAKERS)."""
        if key not in self.objects:
            self.objects[key] = await MAKERS[key](self)
        return self.objects[key]

    async def ok(
        self, method: str, path: str, headers: dict[str, str], body=None, status: int = 200
    ) -> dict:
        response = await self.client.request(method, path, json=body, headers=headers)
        assert response.status == status, f"{method} {path}: {await response.text()}"
        return await response.json() if response.status != 204 else {}


def settings_for(backend: str, database_url: str, tenants: Path, **options: Any) -> Settings:
    public_key = (
        IDP_KEY.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return Settings(
        database_url=database_url,
        secret_key="security-secret-key",
        fernet_keys=(Fernet.generate_key().decode(),),
        load_example_market=False,
        tenant_sqlite_directory=tenants,
        embedded_tenant_databases=backend == "sqlite",
        tenant_database_allowed_networks=("127.0.0.1/32",),
        tenant_database_timeout_seconds=5.0,
        webhook_allowed_networks=("127.0.0.1/32",),
        jwt_public_key=public_key,
        jwt_issuer=IDP_ISSUER,
        jwt_audience=IDP_AUDIENCE,
        **options,
    )


async def _side(world_tenancy: Tenancy, name: str, tenant_url: str | None) -> Side:
    tenancy = world_tenancy
    owner = await tenancy.owner(f"owner@{name}.test", f"Agency {name.upper()}")
    admin = await tenancy.member(owner, f"admin@{name}.test", "admin")
    member = await tenancy.member(owner, f"member@{name}.test", "member")
    key, _ = await add_key(tenancy.client, owner.workspace_id, (Scope.READ, Scope.WRITE))
    read_key, _ = await add_key(tenancy.client, owner.workspace_id, (Scope.READ,))
    if tenant_url is not None:
        await save_database_url(tenancy.client, owner.workspace_id, tenant_url)
    return Side(owner, admin, member, key, read_key, f"extension-user-{name}", tenant_url)


async def _set(tenancy: Tenancy, statement) -> None:
    async with tenancy.database.unit_of_work() as uow:
        await uow.session.execute(statement)


async def _credentials(world: World) -> dict[str, dict[str, str]]:
    """Every credential the matrix sends, by name; all of workspace A (or A's extension user)."""
    tenancy, a = world.tenancy, world.a
    logged_out = await tenancy.login(a.member.email)
    await world.ok("POST", "/api/auth/logout/", {"Cookie": f"sessionid={logged_out}"}, status=204)
    expired = await tenancy.login(a.member.email)
    await _set(
        tenancy,
        update(Session).where(Session.id_hash == hash_session_id(expired)).values(expires_at=PAST),
    )
    revoked_key, revoked_id = await add_key(world.client, a.tenant_id)
    await _set(tenancy, update(ApiKey).where(ApiKey.id == revoked_id).values(revoked_at=PAST))
    expired_key, expired_id = await add_key(world.client, a.tenant_id)
    await _set(tenancy, update(ApiKey).where(ApiKey.id == expired_id).values(expires_at=PAST))
    return {
        "none": {},
        "owner session": a.owner.headers,
        "admin session": a.admin.headers,
        "member session": a.member.headers,
        "garbage session cookie": {"Cookie": "sessionid=not-a-session"},
        "logged-out session": {"Cookie": f"sessionid={logged_out}"},
        "expired session": {"Cookie": f"sessionid={expired}"},
        "api key": world.bearer(a.key),
        "read-only api key": world.bearer(a.read_key),
        "malformed api key": world.bearer("iops_short"),
        "basic credentials": {"Authorization": "Basic YW5uOnNlY3JldA=="},
        "revoked api key": world.bearer(revoked_key),
        "expired api key": world.bearer(expired_key),
        "jwt": world.bearer(world.token(a.subject)),
        "malformed jwt": world.bearer("not.a.jwt"),
        "expired jwt": world.bearer(world.token(a.subject, lifetime=-3600)),
        "forged jwt": world.bearer(world.token(a.subject, key=FORGER_KEY)),
    }


# B's objects, made through the API as B's users would: one maker per object key
# ("segment/{parameter}"). A route on a new kind of object needs a maker here.


async def _rule(world: World) -> str:
    headers = world.b.owner.headers
    rule = await world.ok("POST", "/api/rules/rules/", headers, {"source": TRIAGE}, 201)
    await world.ok("PATCH", f"/api/rules/rules/{rule['id']}/", headers, {"published_version": 1})
    return rule["id"]


async def _case_set(world: World) -> str:
    rule_id = await world.object("rules/{rule_id}")
    body = {"name": "B's cases", "cases": [{"id": "b", "inputs": {"claim": {"amount": 1}}}]}
    done = await world.ok(
        "POST", f"/api/rules/rules/{rule_id}/case-sets/", world.b.owner.headers, body, 201
    )
    return done["id"]


async def _approval(world: World) -> str:
    rule_id = await world.object("rules/{rule_id}")
    done = await world.ok(
        "POST", f"/api/rules/rules/{rule_id}/approvals/", world.b.owner.headers, {"version": 1}, 201
    )
    return done["id"]


async def _execution(world: World) -> str:
    rule_id = await world.object("rules/{rule_id}")
    done = await world.ok(
        "POST",
        f"/api/rules/rules/{rule_id}/execute/",
        world.b.owner.headers,
        {"inputs": {"claim": {"amount": 20000}}},
    )
    return str(done["execution"]["id"])


async def _binding(world: World) -> str:
    rule_id = await world.object("rules/{rule_id}")
    done = await world.ok("POST", "/api/rules/bindings/", world.b.owner.headers,
                          {"rule_id": rule_id, "record_type": "claim", "on": ["created"]}, 201)
    return done["id"]


async def _run(world: World) -> str:
    rule_id = await world.object("rules/{rule_id}")
    done = await world.ok("POST", f"/api/rules/rules/{rule_id}/runs/", world.b.owner.headers,
                          {"record_type": "claim"}, 202)
    return done["id"]


async def _failed_record(world: World) -> str:
    """A record of B's tenant database, named as a failed record of B's binding or run."""
    return await world.object("clients/{uuid}")


async def _api_key(world: World) -> str:
    done = await world.ok(
        "POST", "/api/v2/settings/api-keys/", world.b.owner.headers, {"name": "B's laptop"}, 201
    )
    return done["id"]


async def _invitation(world: World) -> str:
    done = await world.ok(
        "POST",
        "/api/team/invite/",
        world.b.owner.headers,
        {"email": "invited@b.test", "role": "member"},
        201,
    )
    return done["id"]


async def _revoked_invitation(world: World) -> str:
    headers = world.b.owner.headers
    done = await world.ok(
        "POST", "/api/team/invite/", headers, {"email": "revoked@b.test", "role": "member"}, 201
    )
    await world.ok("POST", f"/api/team/invitations/{done['id']}/revoke/", headers)
    await _set(
        world.tenancy,
        update(Invitation).where(Invitation.id == done["id"]).values(token_hash=hash_token(TOKEN)),
    )
    return done["id"]


async def _member(world: World) -> str:
    return world.b.member.user_id


async def _provider(world: World) -> str:
    await world.ok(
        "POST",
        "/api/v1/connectors/llm-adaptor/keys",
        world.b.owner.headers,
        {"provider": "anthropic", "api_key": "sk-ant-b-secret-key"},
    )
    return "anthropic"


async def _client(world: World) -> str:
    done = await world.ok(
        "POST", "/api/v2/mcp/clients/", world.bearer(world.b.key), {"name": "B's client"}, 201
    )
    world.objects["client id"] = done["id"]
    return done["uuid"]


async def _policy(world: World) -> str:
    await world.object("clients/{uuid}")
    done = await world.ok(
        "POST",
        "/api/v2/mcp/policies/",
        world.bearer(world.b.key),
        {"client_id": world.objects["client id"], "policy_number": "B-1"},
        201,
    )
    return done["uuid"]


async def _prospect(world: World) -> str:
    headers = world.bearer(world.token(world.b.subject))
    await world.ok(
        "POST",
        "/api/v1/carrier_finder/clients/accept-terms/",
        headers,
        {"version": world.settings.prospects_terms_version},
    )
    done = await world.ok(
        "POST", "/api/v1/carrier_finder/clients/", headers, {"company_name": "B's prospect"}, 201
    )
    return done["id"]


async def _carrier(world: World) -> str:
    async with world.tenancy.database.unit_of_work() as uow:
        await store_market(
            uow.session,
            load_market(market_texts()),
            now=datetime.datetime.fromtimestamp(world.clock(), datetime.UTC),
            workspace_id=world.b.tenant_id,
        )
    return "alpha"


OWN_APPETITE = """ruleset appetite.b_mutual.gl "B Mutual: contractors liability"
input business: Business
default decision decline

rule electricians "Electricians in Arizona"
when business.naics == "238210" and business.state == "AZ"
then
    accept "B Mutual writes electricians in Arizona"
end
"""


async def _own_carrier(world: World) -> str:
    """B's own carrier (POST /carriers/), not a market one."""
    body = {"id": "b-mutual", "name": "B Mutual", "states": ["AZ"]}
    done = await world.ok("POST", "/api/v1/carrier_finder/carriers/", world.b.owner.headers, body, 201)
    return done["id"]


async def _own_product(world: World) -> str:
    """A product of B's own carrier, its appetite a rule of B's."""
    headers = world.b.owner.headers
    carrier = await world.object("products/{carrier_id}")
    rule = await world.ok(
        "POST", "/api/rules/rules/", headers, {"source": OWN_APPETITE, "kind": "appetite"}, 201
    )
    world.objects["appetite rule id"] = rule["id"]
    body = {
        "carrier_id": carrier,
        "code": "contractors-gl",
        "line": "CGL",
        "name": "Contractors GL",
        "max_limit": 1000000,
        "appetite_rule_id": rule["id"],
    }
    done = await world.ok("POST", "/api/v1/carrier_finder/products/", headers, body, 201)
    return done["id"].split("/")[-1]


async def _ruleset(world: World) -> str:
    """The tenant API names B's rules rulesets (/api/v2/mcp/rulesets/<id>/)."""
    return await world.object("rules/{rule_id}")


def _insert(world: World, table: str, values: dict[str, Any]) -> str:
    """A row in B's tenant database, written as another application would (no API writes
    tasks or uw_scores); its id."""
    row = {"id": uuid.uuid4(), "tenant_id": world.b.tenant_id, **values}
    with world.tenant_engine(world.b).begin() as connection:
        connection.execute(sa.insert(sa_table(table)).values(**row))
    return str(row["id"])


async def _task(world: World) -> str:
    await world.object("clients/{uuid}")  # B's tenant database exists
    return _insert(world, "tasks", {"subject": "Review B's renewal"})


async def _uw_score(world: World) -> str:
    await world.object("clients/{uuid}")
    submission = _insert(world, "uw_submissions", {})
    world.objects["uw submission id"] = submission
    return _insert(world, "uw_scores", {"submission_id": uuid.UUID(submission), "score": 42,
                                        "decision": "refer"})
async def _uw_submission(world: World) -> str:
    """B's submission (the one B's uw_score is on)."""
    await world.object("uw_scores/{id}")
    return world.objects["uw submission id"]


async def _webhook(world: World) -> str:
    """B's webhook endpoint (on a loopback port nothing listens on: nothing is delivered)."""
    body = {"url": "http://127.0.0.1:9/b-receiver", "event_types": ["run.completed"]}
    done = await world.ok("POST", "/api/v2/settings/webhooks/", world.b.owner.headers, body, 201)
    return done["id"]


async def _delivery(world: World) -> str:
    """A delivery to B's endpoint: an event published in B's workspace (the outbox)."""
    await world.object("webhooks/{webhook_id}")
    now = datetime.datetime.fromtimestamp(world.clock(), datetime.UTC)
    run = {"id": "01JB0RUN0000000000000000B1", "rule_id": world.objects["rules/{rule_id}"],
           "version": 1, "mode": "apply", "record_type": "claim", "status": "completed",
           "total": 3, "done": 3, "errors": 0}
    async with world.tenancy.database.unit_of_work() as uow:
        await publish(uow.session, world.b.tenant_id, "run.completed",
                      {"run": run, "summary": {"decisions": {"accept": 3}}, "at": now}, now=now)
        # finished already: the service's own delivery job (jobs run in serve) leaves it be,
        # so B's rows stay as they are while the sweeps compare them
        await uow.session.execute(update(WebhookDelivery).where(
            WebhookDelivery.workspace_id == world.b.tenant_id).values(
            status="delivered", next_attempt_at=None, attempts=1, response_status=204))
    page = await world.ok("GET", f"/api/v2/settings/webhooks/{world.objects['webhooks/{webhook_id}']}"
                          "/deliveries/", world.b.owner.headers)
    return page["items"][0]["id"]


MAKERS: dict[str, Callable[[World], Awaitable[str]]] = {
    "rules/{rule_id}": _rule,
    "rulesets/{rule_id}": _ruleset,
    "tasks/{id}": _task,
    "uw_scores/{id}": _uw_score,
    "uw_submissions/{id}": _uw_submission,
    "approvals/{approval_id}": _approval,
    "executions/{execution_id}": _execution,
    "case-sets/{case_set_id}": _case_set,
    "bindings/{binding_id}": _binding,
    "runs/{run_id}": _run,
    "failures/{record_id}": _failed_record,
    "api-keys/{key_id}": _api_key,
    "invitations/{invitation_id}": _invitation,
    "invitations/{invitation_id} revoked": _revoked_invitation,
    "members/{user_id}": _member,
    "keys/{provider}": _provider,
    "clients/{uuid}": _client,
    "policies/{uuid}": _policy,
    "clients/{prospect_id}": _prospect,
    "carriers/{carrier_id}": _carrier,
    "products/{carrier_id}": _own_carrier,
    "/{code}": _own_product,
    "webhooks/{webhook_id}": _webhook,
    "deliveries/{delivery_id}": _delivery,
}


@pytest.fixture(scope="module", params=BACKENDS)
def world_backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgresql":
        require_postgres()
    return request.param


@pytest.fixture(scope="module")
def world_settings() -> dict[str, Any]:
    """Settings a module's world differs by (a module overrides this fixture)."""
    return {}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(
    world_backend: str, world_settings: dict[str, Any], tmp_path_factory, sqlite_databases,
    postgres_databases,
) -> AsyncIterator[World]:
    """The service with workspaces A and B, A's credentials and every object of B."""
    directory = tmp_path_factory.mktemp("security")
    releases: list[Callable[[], None]] = []
    try:
        if world_backend == "sqlite":
            platform = sqlite_databases.copy(Template.PLATFORM, directory)
            tenant_urls: list[str | None] = [None, None]
        else:
            platform, release = postgres_databases.copy(Template.PLATFORM)
            releases.append(release)
            tenant_urls = []
            for _ in range(2):
                urls, release = postgres_databases.copy(Template.TENANT)
                releases.append(release)
                tenant_urls.append(urls.sync)
        settings = settings_for(
            world_backend, platform.async_, directory / "tenants", **world_settings
        )
        clock = FakeClock(time.time())
        app = create_app(settings, clock=clock, areas=cheap_areas())
        client = TestClient(TestServer(app), cookie_jar=DummyCookieJar())
        await client.start_server()
        try:
            tenancy = Tenancy(client, clock)
            a = await _side(tenancy, "a", tenant_urls[0])
            b = await _side(tenancy, "b", tenant_urls[1])
            world = World(world_backend, settings, tenancy, a, b, platform_url=platform.sync)
            world.credentials = await _credentials(world)
            for key in MAKERS:
                await world.object(key)
            try:
                yield world
            finally:
                for engine in world.engines.values():
                    engine.dispose()
        finally:
            await client.close()
    finally:
        for release in reversed(releases):
            release()
