"""Issue 17: tenant isolation. Workspace A tries every route on workspace B's objects.

Two workspaces, each with its own tenant database (two PostgreSQL schemas, or two embedded SQLite
files). From A: every route whose path names an object, on B's objects (derived from the route
declarations); every read; and every request whose body or query names an object (listed here,
and a test fails when a new route takes such a field unlisted). Each attempt answers as
documented, shows nothing of B, and changes nothing: both tenant databases and every platform
row naming B are read directly before and after.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy import text, update

from insureops.platform.http.routing import Mount, Route
from insureops.platform.team.invitations import hash_token
from insureops.platform.team.models import Invitation
from insureops.platform.tenancy.workspaces import embedded_database_url
from tests.platform.rules_studio.conftest import CLIENT_CHECK
from tests.platform.security.conftest import OWN_APPETITE, Side, World
from tests.platform.security.declared import (
    ROUTES,
    STRONGEST,
    crossable,
    filled_path,
    operation,
    valid_body,
)

A_TOKEN = "a-token-of-workspace-a-invitation-000000000"


@dataclass(frozen=True)
class Attempt:
    """One request of A's: what it must answer (`status` None: any status below 500)."""

    method: str
    path: str
    credential: str
    body: Any = None
    status: int | None = 404
    code: str | None = "not_found"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mine(world: World) -> dict[str, str]:
    """A's own objects the body-borne attempts start from: a published rule taking a Client,
    a client and a policy in A's tenant database, a pending invitation with a known token."""
    headers, key = world.a.owner.headers, world.bearer(world.a.key)
    rule = await world.ok("POST", "/api/rules/rules/", headers, {"source": CLIENT_CHECK}, 201)
    await world.ok("PATCH", f"/api/rules/rules/{rule['id']}/", headers, {"published_version": 1})
    client = await world.ok("POST", "/api/v2/mcp/clients/", key, {"name": "A's client"}, 201)
    policy = await world.ok(
        "POST",
        "/api/v2/mcp/policies/",
        key,
        {"client_id": client["id"], "policy_number": "A-1"},
        201,
    )
    invitation = await world.ok(
        "POST", "/api/team/invite/", headers, {"email": "invited@a.test", "role": "member"}, 201
    )
    async with world.tenancy.database.unit_of_work() as uow:
        await uow.session.execute(
            update(Invitation)
            .where(Invitation.id == invitation["id"])
            .values(token_hash=hash_token(A_TOKEN))
        )
    appetite = await world.ok(
        "POST",
        "/api/rules/rules/",
        headers,
        {"source": OWN_APPETITE.replace("b_mutual", "a_mutual"), "kind": "appetite"},
        201,
    )
    # published: A's own product is in the market A sees (A starts submissions to it)
    await world.ok("PATCH", f"/api/rules/rules/{appetite['id']}/", headers,
                   {"published_version": 1})
    carrier = {"id": "a-mutual", "name": "A Mutual", "states": ["AZ"]}
    await world.ok("POST", "/api/v1/carrier_finder/carriers/", headers, carrier, 201)
    product = own_product_body("a-mutual", "a-gl", appetite["id"])
    await world.ok("POST", "/api/v1/carrier_finder/products/", headers, product, 201)
    return {
        "rule": rule["id"],
        "client": client["uuid"],
        "policy": policy["uuid"],
        "appetite": appetite["id"],
    }


def own_product_body(carrier: str, code: str, rule_id: str) -> dict:
    return {
        "carrier_id": carrier,
        "code": code,
        "line": "CGL",
        "name": "Contractors GL",
        "max_limit": 1000000,
        "appetite_rule_id": rule_id,
    }


def _b_file(world: World, relative: bool) -> str:
    b = world.b.tenant_id
    if relative:
        return f"sqlite:///../{b}/{b}.sqlite3"
    return embedded_database_url(world.settings.tenant_sqlite_root, b)


# Requests naming B's objects in the body or query; by name. Each builds its Attempt from the
# world and A's own objects.
Build = Callable[[World, dict[str, str]], Attempt]
EXPLICIT: dict[str, Build] = {
    "a new policy of A linked to B's client": lambda w, m: Attempt(
        "POST",
        "/api/v2/mcp/policies/",
        "api key",
        {"client_id": w.objects["client id"]},
        400,
        "validation_error",
    ),
    "A's policy moved to B's client": lambda w, m: Attempt(
        "PATCH",
        f"/api/v2/mcp/policies/{m['policy']}/update/",
        "api key",
        {"client_id": w.objects["client id"]},
        400,
        "validation_error",
    ),
    "A's policies filtered by B's client": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/policies/list/?client_uuid={w.objects['clients/{uuid}']}",
        "api key",
        status=200,
        code=None,
    ),
    "A's rule executed on B's client record": lambda w, m: Attempt(
        "POST",
        f"/api/rules/rules/{m['rule']}/execute/",
        "owner session",
        {"record": {"type": "client", "uuid": w.objects["clients/{uuid}"]}},
    ),
    "B's rule bound by A": lambda w, m: Attempt(
        "POST",
        "/api/rules/bindings/",
        "owner session",
        {"rule_id": w.objects["rules/{rule_id}"], "record_type": "claim", "on": ["created"]},
    ),
    "B's rule's runs listed by A": lambda w, m: Attempt(
        "GET",
        f"/api/rules/runs/?rule_id={w.objects['rules/{rule_id}']}",
        "member session",
        status=200,
        code=None,
    ),
    "B's rule's runs listed by A's key": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/runs/?rule_id={w.objects['rules/{rule_id}']}",
        "api key",
        status=200,
        code=None,
    ),
    "B's rule simulated by A": lambda w, m: Attempt(
        "POST",
        "/api/rules/rules/simulate/",
        "member session",
        {"rule_id": w.objects["rules/{rule_id}"], "cases": [{"inputs": {"claim": {}}}]},
    ),
    "B's case set simulated by A": lambda w, m: Attempt(
        "POST",
        "/api/rules/rules/simulate/",
        "member session",
        {"rule_id": m["rule"], "case_set_id": w.objects["case-sets/{case_set_id}"]},
    ),
    "B's case set read under A's rule": lambda w, m: Attempt(
        "GET",
        f"/api/rules/rules/{m['rule']}/case-sets/{w.objects['case-sets/{case_set_id}']}/",
        "member session",
    ),
    "B's case set changed by A's key under A's rule": lambda w, m: Attempt(
        "PATCH",
        f"/api/rules/sync/rules/{m['rule']}/case-sets/{w.objects['case-sets/{case_set_id}']}/",
        "api key",
        {"cases": []},
    ),
    "A's executions filtered by B's client": lambda w, m: Attempt(
        "GET",
        f"/api/rules/rules/{m['rule']}/executions/?record_uuid={w.objects['clients/{uuid}']}",
        "member session",
        status=200,
        code=None,
    ),
    "A's executions filtered by B's client with A's key": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/rulesets/{m['rule']}/executions/?record_uuid={w.objects['clients/{uuid}']}",
        "api key",
        status=200,
        code=None,
    ),
    "B's client simulated by A's rule": lambda w, m: Attempt(
        "POST",
        "/api/rules/rules/simulate/",
        "member session",
        {
            "rule_id": m["rule"],
            "cases": [{"record": {"type": "client", "uuid": w.objects["clients/{uuid}"]}}],
        },
    ),
    # The tenant API's rulesets, tasks and uw_scores (the MCP tools' operations), by A's key
    "A's tasks filtered by B's record": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/tasks/list/?entity_id={w.objects['client id']}",
        "api key",
        status=200,
        code=None,
    ),
    "A's uw_scores filtered by B's submission": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/uw_scores/list/?submission_id={w.objects['uw submission id']}",
        "api key",
        status=200,
        code=None,
    ),
    "B's rule simulated by A's key": lambda w, m: Attempt(
        "POST",
        "/api/v2/mcp/rulesets/simulate/",
        "api key",
        {"rule_id": w.objects["rules/{rule_id}"], "cases": [{"inputs": {"claim": {}}}]},
    ),
    "B's client simulated by A's rule with A's key": lambda w, m: Attempt(
        "POST",
        "/api/v2/mcp/rulesets/simulate/",
        "api key",
        {
            "rule_id": m["rule"],
            "cases": [{"record": {"type": "client", "uuid": w.objects["clients/{uuid}"]}}],
        },
    ),
    "A's rule executed on B's client record with A's key": lambda w, m: Attempt(
        "POST",
        f"/api/v2/mcp/rulesets/{m['rule']}/execute/",
        "api key",
        {"record": {"type": "client", "uuid": w.objects["clients/{uuid}"]}},
    ),
    "B's execution read under A's rule with A's key": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/rulesets/{m['rule']}/executions/"
        f"{w.objects['executions/{execution_id}']}/",
        "api key",
    ),
    "B's approval decided under A's rule": lambda w, m: Attempt(
        "POST",
        f"/api/rules/rules/{m['rule']}/approvals/{w.objects['approvals/{approval_id}']}/approve/",
        "owner session",
        {},
    ),
    "B's execution read under A's rule": lambda w, m: Attempt(
        "GET",
        f"/api/rules/rules/{m['rule']}/executions/{w.objects['executions/{execution_id}']}/",
        "member session",
    ),
    "B's embedded database saved by a relative path": lambda w, m: Attempt(
        "POST",
        "/api/v2/settings/database/",
        "owner session",
        {"url": _b_file(w, True)},
        400,
        "database_url_refused",
    ),
    "B's embedded database saved by its absolute path": lambda w, m: Attempt(
        "POST",
        "/api/v2/settings/database/",
        "owner session",
        {"url": _b_file(w, False)},
        400,
        "database_url_refused",
    ),
    "B's embedded database tested": lambda w, m: Attempt(
        "POST",
        "/api/v2/settings/database/test/",
        "owner session",
        {"url": _b_file(w, True)},
        400,
        "database_url_refused",
    ),
    "B's LLM provider key tested by A": lambda w, m: Attempt(
        "POST",
        "/api/v1/connectors/llm-adaptor/test",
        "owner session",
        {"provider": w.objects["keys/{provider}"]},
        404,
        "llm_key_not_found",
    ),
    "B's invitation accepted with A's invitation token": lambda w, m: Attempt(
        "POST",
        f"/api/team/invitations/{w.objects['invitations/{invitation_id}']}/accept/",
        "none",
        {"token": A_TOKEN, "name": "Intruder", "password": "a long password"},
        401,
        "invalid_token",
    ),
    "carriers matched for A (B has its own carrier)": lambda w, m: Attempt(
        "POST",
        "/api/v1/carrier_finder/match-carriers-detailed/",
        "member session",
        {"business": {"naics": "238210", "state": "CA"}, "lines": ["CGL"]},
        200,
        None,
    ),
    "A's product on B's own carrier": lambda w, m: Attempt(
        "POST",
        "/api/v1/carrier_finder/products/",
        "owner session",
        own_product_body(w.objects["products/{carrier_id}"], "taken", m["appetite"]),
        400,
        "validation_error",
    ),
    "A's product bound to B's appetite rule": lambda w, m: Attempt(
        "POST",
        "/api/v1/carrier_finder/products/",
        "owner session",
        own_product_body("a-mutual", "stolen", w.objects["appetite rule id"]),
        422,
        "appetite_rule_invalid",
    ),
    "A's product rebound to B's appetite rule": lambda w, m: Attempt(
        "PATCH",
        "/api/v1/carrier_finder/products/a-mutual/a-gl/",
        "owner session",
        {"appetite_rule_id": w.objects["appetite rule id"]},
        422,
        "appetite_rule_invalid",
    ),
    "A's submission for B's client": lambda w, m: Attempt(
        "POST",
        "/api/v1/carrier_finder/submissions/",
        "member session",
        {"product_id": "a-mutual/a-gl", "business": {"naics": "238210", "state": "AZ"},
         "client_id": w.objects["client id"]},
        400,
        "validation_error",
    ),
    "A's submission for B's client by its uuid": lambda w, m: Attempt(
        "POST",
        "/api/v1/carrier_finder/submissions/",
        "member session",
        {"product_id": "a-mutual/a-gl", "business": {"naics": "238210", "state": "AZ"},
         "client_id": w.objects["clients/{uuid}"]},
        400,
        "validation_error",
    ),
    "A's submission to B's own market's product": lambda w, m: Attempt(
        "POST",
        "/api/v1/carrier_finder/submissions/",
        "member session",
        {"product_id": f"{w.objects['carriers/{carrier_id}']}/gl",
         "business": {"naics": "238210", "state": "AZ"}, "client_id": m["client"]},
    ),
    "A's submission for B's client with A's key": lambda w, m: Attempt(
        "POST",
        "/api/v2/mcp/uw_submissions/",
        "api key",
        {"lob": "liability", "client_id": w.objects["client id"]},
        400,
        "validation_error",
    ),
    "A's submission on B's policy with A's key": lambda w, m: Attempt(
        "POST",
        "/api/v2/mcp/uw_submissions/",
        "api key",
        {"lob": "liability", "policy_id": w.objects["policies/{uuid}"]},
        400,
        "validation_error",
    ),
    "A's uw_submissions filtered by B's client": lambda w, m: Attempt(
        "GET",
        f"/api/v2/mcp/uw_submissions/list/?client_id={w.objects['client id']}",
        "api key",
        status=200,
        code=None,
    ),
    "carriers searched for A": lambda w, m: Attempt(
        "POST", "/api/v1/carrier_finder/search/", "member session", {"naics": "238210"}, 200, None
    ),
}

# Body and query fields that name an object, per operation: the EXPLICIT attempts covering them,
# or why the field cannot reach another workspace.
_REFERENCE = re.compile(r"(_id|_uuid|_ids|^uuid|^record|^provider|^url)$")
REFERENCES: dict[str, str | tuple[str, ...]] = {
    "GET /api/v2/mcp/policies/list/": "A's policies filtered by B's client",
    "POST /api/v2/settings/database/": "B's embedded database saved by a relative path",
    "POST /api/v2/settings/database/test/": "B's embedded database tested",
    "POST /api/rules/rules/simulate/": (
        "B's rule simulated by A",
        "B's client simulated by A's rule",
        "B's case set simulated by A",
    ),
    "POST /api/rules/rules/{rule_id}/execute/": "A's rule executed on B's client record",
    "GET /api/rules/rules/{rule_id}/executions/": "A's executions filtered by B's client",
    **dict.fromkeys(
        (
            "POST /api/rules/rules/{rule_id}/case-sets/",
            "PATCH /api/rules/rules/{rule_id}/case-sets/{case_set_id}/",
            "POST /api/rules/sync/rules/{rule_id}/case-sets/",
            "PATCH /api/rules/sync/rules/{rule_id}/case-sets/{case_set_id}/",
        ),
        "a case's record is kept as written; simulate reads it from the caller's own tenant "
        "database (\"B's client simulated by A's rule\")",
    ),
    "GET /api/v2/mcp/tasks/list/": "A's tasks filtered by B's record",
    "GET /api/v2/mcp/rulesets/{rule_id}/executions/": (
        "A's executions filtered by B's client with A's key"
    ),
    "GET /api/v2/mcp/uw_scores/list/": "A's uw_scores filtered by B's submission",
    "GET /api/v2/mcp/uw_submissions/list/": "A's uw_submissions filtered by B's client",
    "POST /api/v2/mcp/uw_submissions/": (
        "A's submission for B's client with A's key",
        "A's submission on B's policy with A's key",
    ),
    "POST /api/v1/carrier_finder/submissions/": (
        "A's submission for B's client",
        "A's submission for B's client by its uuid",
        "A's submission to B's own market's product",
    ),
    "POST /api/v2/mcp/rulesets/simulate/": (
        "B's rule simulated by A's key",
        "B's client simulated by A's rule with A's key",
    ),
    "POST /api/v2/mcp/rulesets/{rule_id}/execute/": (
        "A's rule executed on B's client record with A's key"
    ),
    "POST /api/rules/bindings/": "B's rule bound by A",
    "GET /api/rules/runs/": "B's rule's runs listed by A",
    "GET /api/v2/mcp/runs/": "B's rule's runs listed by A's key",
    "POST /api/v1/connectors/llm-adaptor/test": "B's LLM provider key tested by A",
    "POST /api/v1/connectors/llm-adaptor/keys": "saves the caller's own key of that provider",
    "POST /api/v1/carrier_finder/products/": "A's product bound to B's appetite rule",
    "PATCH /api/v1/carrier_finder/products/{carrier_id}/{code}/": (
        "A's product rebound to B's appetite rule"
    ),
    "POST /api/v1/carrier_finder/scan/": "fetches a public web site; names nothing stored",
    "POST /api/v2/settings/webhooks/": "the caller's own receiver's address; names nothing stored",
    "PATCH /api/v2/settings/webhooks/{webhook_id}/": (
        "the caller's own receiver's address; names nothing stored"),
}

# Queries that make a read look for B's objects by what B named them.
QUERIES: dict[str, Callable[[World], dict[str, str]]] = {
    "GET /api/v1/carrier_finder/clients/check-duplicate/": lambda w: {
        "company_name": "B's prospect"
    },
    "GET /api/v1/carrier_finder/clients/search-prospects/": lambda w: {"q": "B's prospect"},
    "GET /api/v1/carrier_finder/carriers/": lambda w: {"carrier": "alpha"},
    "GET /api/v1/carrier_finder/products/": lambda w: {"carrier": "alpha"},
    "GET /api/v1/carrier_finder/appetites/": lambda w: {"carrier": "alpha"},
}


def _derived() -> dict[str, tuple[Mount, Route]]:
    """Every route on B's objects, and every read: by operation."""
    return {
        operation(mount, route): (mount, route)
        for mount, route in ROUTES
        if crossable(route) or route.method == "GET"
    }


DERIVED = _derived()


def derived_attempt(world: World, mount: Mount, route: Route) -> Attempt:
    key = operation(mount, route)
    path = filled_path(mount, route, world.objects)
    if key in QUERIES:
        path += "?" + "&".join(f"{name}={value}" for name, value in QUERIES[key](world).items())
    credential = STRONGEST[route.auth.kind]
    if crossable(route):
        return Attempt(route.method, path, credential, valid_body(route.body))
    return Attempt(route.method, path, credential, status=None, code=None)


def markers(world: World) -> set[str]:
    """What of B must never appear in an answer to A."""
    b = world.b
    found = {
        b.tenant_id,
        b.owner.user_id,
        b.admin.user_id,
        b.member.user_id,
        "@b.test",
        "Agency B",
        "B's client",
        "B's prospect",
        "B's laptop",
        "B's cases",
        b.subject,
        b.key,
        b.read_key,
        "sk-ant-b-secret-key",
        "b-receiver",
        '"alpha"',
        '"alpha/',
    }
    found |= {
        value
        for key, value in world.objects.items()
        if len(value) >= 8 and not key.startswith("keys/")
    }  # not a provider's name
    if b.tenant_url:
        found.add(parse_qs(urlsplit(b.tenant_url).query)["application_name"][0])
    return found


def _all_rows(connection: sa.Connection, names: list[str]) -> dict[str, list[tuple[str, set]]]:
    """Every row of the tables `names`, by table: (the row as text, its values as text). On
    PostgreSQL in one statement (a round trip per table per attempt was most of the sweep)."""
    if connection.dialect.name != "postgresql":
        return {name: [(str(tuple(row)), {str(value) for value in row}) for row in
                       connection.execute(text(f'SELECT * FROM "{name}"'))] for name in names}
    found: dict[str, list[tuple[str, set]]] = {name: [] for name in names}
    statement = " UNION ALL ".join(
        f"SELECT '{name}' AS name, row_to_json(t)::text AS row FROM \"{name}\" t" for name in names)
    for name, row in connection.execute(text(statement)) if names else ():
        values = json.loads(row).values()
        found[name].append((row, {str(value) for value in values}))
    return found


def _rows(world: World, side: Side) -> dict[str, list[str]]:
    """Every row of `side`'s tenant database, by table."""
    with world.tenant_engine(side).connect() as connection:
        names = world.tables.get(side.tenant_id) or world.tables.setdefault(
            side.tenant_id, sa.inspect(connection).get_table_names()
        )
        return {name: sorted(row for row, _ in rows)
                for name, rows in _all_rows(connection, names).items()}


async def platform_rows_of_b(world: World) -> dict[str, list[str]]:
    """Every platform database row holding one of B's identifiers, by table."""
    ids = {
        world.b.tenant_id,
        world.b.owner.user_id,
        world.b.admin.user_id,
        world.b.member.user_id,
    } | {v for v in world.objects.values() if len(v) >= 8}
    with world.platform_engine().connect() as connection:
        if "platform" not in world.tables:  # the tables do not change during the sweep
            world.tables["platform"] = sa.inspect(connection).get_table_names()
        return {name: sorted(row for row, values in rows if ids & values)
                for name, rows in _all_rows(connection, world.tables["platform"]).items()}


async def state(world: World) -> dict[str, Any]:
    """Both tenant databases and B's platform rows, read directly."""
    return {
        "tenant A": _rows(world, world.a),
        "tenant B": _rows(world, world.b),
        "platform rows of B": await platform_rows_of_b(world),
    }


async def attempt_changes_nothing_and_shows_nothing(world: World, attempt: Attempt) -> None:
    before = await state(world)
    response = await world.client.request(
        attempt.method,
        attempt.path,
        json=attempt.body,
        headers=world.credentials[attempt.credential],
    )
    answer = await response.text()
    shown = answer[:2000]
    if attempt.status is None:
        assert response.status < 500, shown
    else:
        assert response.status == attempt.status, shown
    if attempt.code is not None:
        code = (await response.json())["error"]["code"]
        assert code == attempt.code or (
            attempt.code == "not_found" and code.endswith("_not_found")
        ), shown
    # What A sent may be echoed ("No client <uuid> in your workspace."); nothing else of B.
    sent = attempt.path + json.dumps(attempt.body)
    leaked = sorted(m for m in markers(world) if m in answer and m not in sent)
    assert leaked == [], shown
    assert await state(world) == before


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", sorted(DERIVED))
async def test_a_cannot_reach_b_through_a_declared_route(world: World, mine, name: str):
    mount, route = DERIVED[name]
    await attempt_changes_nothing_and_shows_nothing(world, derived_attempt(world, mount, route))


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", sorted(EXPLICIT))
async def test_a_cannot_reach_b_by_naming_its_objects(world: World, mine, name: str):
    await attempt_changes_nothing_and_shows_nothing(world, EXPLICIT[name](world, mine))


@pytest.mark.asyncio(loop_scope="module")
async def test_b_still_sees_its_own_objects_when_a_has_tried_everything(world: World, mine):
    """The sweep refused A without breaking B: B's objects answer B as before."""
    b = world.b
    for path, headers in (
        (f"/api/rules/rules/{world.objects['rules/{rule_id}']}/", b.owner.headers),
        (f"/api/v2/mcp/clients/{world.objects['clients/{uuid}']}/", world.bearer(b.key)),
        (f"/api/v2/mcp/policies/{world.objects['policies/{uuid}']}/", world.bearer(b.key)),
        (
            f"/api/v1/carrier_finder/carriers/{world.objects['carriers/{carrier_id}']}/",
            b.member.headers,
        ),
    ):
        assert (await world.client.get(path, headers=headers)).status == 200, path
    members = await world.ok("GET", "/api/team/members/", b.owner.headers)
    assert {m["email"] for m in members["members"]} == {
        "owner@b.test",
        "admin@b.test",
        "member@b.test",
    }
    logs = await world.ok("GET", "/api/v1/connectors/email/logs/", b.owner.headers)
    assert "invited@b.test" in {to for item in logs["items"] for to in item["to"]}
    keys = await world.ok("GET", "/api/v1/connectors/llm-adaptor/keys", b.owner.headers)
    assert {k["provider"] for k in keys["providers"] if k["configured"]} == {"anthropic"}
    hooks = await world.ok("GET", "/api/v2/settings/webhooks/", b.owner.headers)
    assert [h["id"] for h in hooks["items"]] == [world.objects["webhooks/{webhook_id}"]]
    prospects = await world.ok(
        "GET", "/api/v1/carrier_finder/clients/", world.bearer(world.token(b.subject))
    )
    assert [p["company_name"] for p in prospects["items"]] == ["B's prospect"]


def test_every_field_naming_an_object_is_tried_across_workspaces():
    """A new route whose body or query names an object needs an EXPLICIT attempt (or a reason)
    in REFERENCES; a derived route needs nothing."""
    unlisted = []
    for mount, route in ROUTES:
        for model in (route.body, route.query):
            fields = [name for name in _field_names(model) if _REFERENCE.search(name)]
            if fields and operation(mount, route) not in REFERENCES:
                unlisted.append(f"{operation(mount, route)}: {fields}")
    assert unlisted == []
    named = {
        reason
        for value in REFERENCES.values()
        for reason in ((value,) if isinstance(value, str) else value)
    }
    assert {"B's rule simulated by A", "B's client simulated by A's rule"} <= set(EXPLICIT)
    assert {reason for reason in named if reason in EXPLICIT} <= set(EXPLICIT)


def _field_names(model: Any, seen: frozenset = frozenset()) -> list[str]:
    """The model's field names, and those of the models nested in them (a case's `record`)."""
    if model is None or model in seen:
        return []
    names = []
    for name, field in model.model_fields.items():
        names.append(name)
        for nested in _models_in(field.annotation):
            names += _field_names(nested, seen | {model})
    return names


def _models_in(annotation: Any) -> list[type]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def test_sweep_covers_every_area_that_holds_workspace_data():
    for area in (
        "/api/v2/mcp/",
        "/api/v2/settings/",
        "/api/rules/",
        "/api/team/",
        "/api/v1/connectors/",
        "/api/v1/carrier_finder/",
    ):
        assert any(area in name for name in DERIVED), area


@pytest.mark.asyncio(loop_scope="module")
async def test_the_same_requests_work_when_they_name_a_own_objects(world: World, mine):
    """The control of the body-borne attempts: they were refused for naming B's objects, not
    for their shape."""
    headers, key = world.a.owner.headers, world.bearer(world.a.key)
    record = {"record": {"type": "client", "uuid": mine["client"]}}
    executed = await world.ok("POST", f"/api/rules/rules/{mine['rule']}/execute/", headers, record)
    assert executed["result"]["decision"] in ("accept", "refer")
    simulated = await world.ok(
        "POST",
        "/api/rules/rules/simulate/",
        world.a.member.headers,
        {"rule_id": mine["rule"], "cases": [{"inputs": {"client": {"name": "Ann"}}}, record]},
    )
    assert simulated
    filtered = await world.ok(
        "GET", f"/api/v2/mcp/policies/list/?client_uuid={mine['client']}", key
    )
    assert [item["uuid"] for item in filtered["items"]] == [mine["policy"]]
