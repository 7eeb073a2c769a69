"""Issue 17: the authorization matrix, generated from the route declarations.

Every declared route x every credential case -> the status and error code it must answer, derived
from the route's AuthRequirement and whose object its path names (`Route.path_owner`): no
credential, a malformed one, a revoked or expired one, the wrong kind, too low a role or scope,
and the right credential of workspace A on an object of workspace B (404, as if it did not
exist). Nothing here lists routes: a new route is in the matrix as soon as it is declared, and
`test_every_route_is_classified` fails until what the declaration cannot tell is supplied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from insureops.platform.auth.requirements import Auth, AuthKind, Role, Scope
from insureops.platform.http.routing import Mount, Owner, Route
from tests.platform.security import declared
from tests.platform.security.conftest import MAKERS, TOKEN, World
from tests.platform.security.declared import (
    STRONGEST,
    crossable,
    filled_path,
    object_keys,
    valid_body,
)

ROUTES = declared.ROUTES


@dataclass(frozen=True)
class Expectation:
    """One request of the matrix: a credential (a name in World.credentials), and the answer."""

    case: str
    credential: str
    status: int | None  # None: a public route; the answer must be the anonymous request's
    code: str | None = None
    cross: bool = False  # the path names B's objects and the body is valid
    body: dict[str, Any] | None = None  # a token route's body (its credential)
    variant: str = ""  # name B's objects of this variant (MAKERS: "<key> <variant>")


def _session(route: Route) -> list[Expectation]:
    unknown = [
        Expectation(case, credential, 401, "not_authenticated")
        for case, credential in (
            ("no credential", "none"),
            ("malformed", "garbage session cookie"),
            ("revoked", "logged-out session"),
            ("expired", "expired session"),
            ("wrong kind: API key", "api key"),
            ("wrong kind: JWT", "jwt"),
        )
    ]
    lower = {Role.ADMIN: ["member session"], Role.OWNER: ["member session", "admin session"]}
    refused = [
        Expectation(f"too-low role: {credential}", credential, 403, "permission_denied")
        for credential in lower.get(route.auth.role, [])
    ]
    return unknown + refused


def _api_key(route: Route) -> list[Expectation]:
    unknown = [
        Expectation(case, credential, 401, "invalid_api_key")
        for case, credential in (
            ("no credential", "none"),
            ("malformed", "malformed api key"),
            ("malformed: not bearer", "basic credentials"),
            ("revoked", "revoked api key"),
            ("expired", "expired api key"),
            ("wrong kind: session", "owner session"),
            ("wrong kind: JWT", "jwt"),
        )
    ]
    if route.auth.scope is Scope.WRITE:
        unknown.append(Expectation("too-low scope", "read-only api key", 403, "insufficient_scope"))
    return unknown


def _jwt(route: Route) -> list[Expectation]:
    return [
        Expectation(case, credential, 401, code)
        for case, credential, code in (
            ("no credential", "none", "not_authenticated"),
            ("malformed", "malformed jwt", "token_malformed"),
            ("expired", "expired jwt", "token_expired"),
            ("forged signature", "forged jwt", "token_signature_invalid"),
            ("wrong kind: session", "owner session", "not_authenticated"),
            ("wrong kind: API key", "api key", "token_malformed"),
        )
    ]


def _token(route: Route) -> list[Expectation]:
    """The credential is the body's `token` (a session is ignored): missing, wrong, or the right
    token of an invitation since revoked."""
    return [
        Expectation("no token", "owner session", 400, "validation_error", body={}),
        Expectation("wrong token", "owner session", 401, "invalid_token", body={"token": "x" * 43}),
        Expectation(
            "revoked", "none", 410, "invitation_revoked", body={"token": TOKEN}, variant="revoked"
        ),
    ]


def _public(route: Route) -> list[Expectation]:
    return [
        Expectation(f"ignored: {credential}", credential, None)
        for credential in (
            "garbage session cookie",
            "owner session",
            "api key",
            "jwt",
            "expired jwt",
        )
    ]


CASES_OF_KIND = {
    AuthKind.SESSION: _session,
    AuthKind.API_KEY: _api_key,
    AuthKind.JWT: _jwt,
    AuthKind.TOKEN: _token,
    AuthKind.NONE: _public,
}


def expectations(route: Route) -> list[Expectation]:
    """The matrix row of `route`, from its declaration alone."""
    cases = CASES_OF_KIND[route.auth.kind](route)
    if crossable(route):
        who = "subject" if route.path_owner is Owner.SUBJECT else "workspace"
        cases.append(
            Expectation(
                f"right credential, another {who}'s object",
                STRONGEST[route.auth.kind],
                404,
                "not_found",
                cross=True,
            )
        )
    return cases


def classification_problems(routes: list[tuple[Mount, Route]]) -> list[str]:
    """What the matrix cannot derive for `routes`: each says what the route needs."""
    problems = []
    for mount, route in routes:
        operation = f"{route.method} {mount.full_path(route)}"
        if route.auth.kind not in CASES_OF_KIND:
            problems.append(f"{operation}: the matrix knows no cases for {route.auth.kind}")
            continue
        if route.path_parameters() and route.path_owner is None:
            problems.append(
                f"{operation}: declare whose object its path names, owner=Owner.X "
                "(platform/http/routing.py)"
            )
        if crossable(route):
            problems += [
                f"{operation}: add a maker of B's {key} to MAKERS "
                "(tests/platform/security/conftest.py)"
                for key in object_keys(mount.full_path(route))
                if key not in MAKERS
            ]
            if route.body is not None and valid_body(route.body) is None:
                problems.append(f"{operation}: add a valid {route.body.__name__} to BODIES")
        if route.auth.kind is AuthKind.TOKEN and (
            route.body is None or "token" not in route.body.model_fields
        ):
            problems.append(f"{operation}: a token route's body must carry `token`")
    return problems


MATRIX = [
    (mount, route, expectation)
    for mount, route in ROUTES
    if route.auth.kind in CASES_OF_KIND
    for expectation in expectations(route)
]


def test_every_route_is_classified():
    """Fails, naming the route and what to add, when a declared route is not classified."""
    assert classification_problems(ROUTES) == []


def test_classification_fails_when_a_route_names_an_undeclared_object():
    async def handler(call):  # pragma: no cover - never called
        return None

    unclassified = Route("GET", "/things/{thing_id}/", handler, None, 204, Auth.SESSION, "x")
    unknown_object = Route(
        "DELETE", "/things/{thing_id}/", handler, None, 204, Auth.session(Role.ADMIN), "x"
    )
    mount = Mount("/api/new", object())  # type: ignore[arg-type]
    problems = classification_problems([(mount, unclassified), (mount, unknown_object)])
    assert len(problems) == 2
    assert "declare whose object" in problems[0]
    assert "add a maker of B's things/{thing_id}" in problems[1]


def test_matrix_covers_every_route_and_case_kind():
    assert {route.name for _, route, _ in MATRIX} == {route.name for _, route in ROUTES}
    kinds = {e.case.split(":")[0] for _, _, e in MATRIX}
    assert {
        "no credential",
        "malformed",
        "revoked",
        "expired",
        "wrong kind",
        "too-low role",
        "too-low scope",
        "right credential, another workspace's object",
        "right credential, another subject's object",
    } <= kinds


async def _answer(
    world: World, method: str, path: str, headers: dict[str, str], body: dict[str, Any] | None
) -> tuple[int, dict | None]:
    response = await world.client.request(method, path, headers=headers, json=body)
    payload = None
    if response.content_type == "application/json":
        payload = await response.json()
    else:
        await response.read()
    return response.status, payload


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(
    ("mount", "route", "expected"),
    MATRIX,
    ids=[
        f"{route.method} {mount.full_path(route)} | {expected.case}"
        for mount, route, expected in MATRIX
    ],
)
async def test_route_answers_as_its_declaration_says(
    world: World, mount: Mount, route: Route, expected: Expectation
):
    headers = world.credentials[expected.credential]
    path = filled_path(mount, route, world.objects, expected.variant)
    body = expected.body
    if expected.cross:
        body = valid_body(route.body)
    status, payload = await _answer(world, route.method, path, headers, body)
    if expected.status is None:  # public: the credential changes nothing
        anonymous, _ = await _answer(world, route.method, path, {}, body)
        assert status == anonymous, payload
        assert status not in (401, 403), payload
        return
    code = payload and payload.get("error", {}).get("code")
    if expected.code == "not_found" and code and code.endswith("_not_found"):
        code = "not_found"  # a route's own name for it (llm_key_not_found) is as good
    assert (status, code) == (expected.status, expected.code), payload
    assert set(payload) == {"error"} and {"code", "message"} <= set(payload["error"])


CONTROLS = [(mount, route) for mount, route in ROUTES if crossable(route) and route.method == "GET"]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(
    ("mount", "route"), CONTROLS, ids=[declared.operation(m, r) for m, r in CONTROLS]
)
async def test_owner_reads_the_object_the_other_workspace_gets_404_for(
    world: World, mount: Mount, route: Route
):
    """The control of the cross-workspace case: B's own credential reads the very path A was
    refused, so that 404 was about ownership (the no-credential case's 401 shows it routes)."""
    b = world.b
    own = {
        AuthKind.SESSION: b.owner.headers,
        AuthKind.API_KEY: world.bearer(b.key),
        AuthKind.JWT: world.bearer(world.token(b.subject)),
    }
    path = filled_path(mount, route, world.objects)
    status, payload = await _answer(world, "GET", path, own[route.auth.kind], None)
    assert status == 200, payload


# The interface specification's access column (spec/service-interface.md, "Endpoints"): the
# matrix checks that routes enforce their declarations; this pins the declarations of the
# specified routes to at least what the specification demands. Routes it does not list (later
# additions) are free; a route it lists must not go missing.
S, N, J, T = AuthKind.SESSION, AuthKind.NONE, AuthKind.JWT, AuthKind.TOKEN
SPEC: dict[str, tuple[AuthKind, Role | Scope | None]] = {
    **{
        f"POST /api/auth/{p}/": (N, None)
        for p in ("signup", "register", "verify", "resend-code", "login")
    },
    "POST /api/auth/logout/": (S, None),
    "GET /api/auth/profile/": (S, None),
    **{
        f"{m} /api/v1/carrier_finder/{p}/": (S, None)
        for m, p in (
            ("GET", "carriers"),
            ("GET", "carriers/{carrier_id}"),
            ("GET", "products"),
            ("GET", "appetites"),
            ("POST", "search"),
            ("POST", "match-carriers-detailed"),
            ("POST", "similar-businesses"),
            ("POST", "jurisdictions"),
            ("POST", "product-lines"),
            ("POST", "scan"),
        )
    },
    "POST /api/v1/carrier_finder/classify/": (N, None),
    **{
        f"{m} /api/v1/carrier_finder/clients/{p}": (J, None)
        for m, p in (
            ("POST", ""),
            ("GET", ""),
            ("PATCH", "{prospect_id}/"),
            ("POST", "accept-terms/"),
            ("GET", "terms-status/"),
            ("GET", "search-prospects/"),
            ("GET", "check-duplicate/"),
        )
    },
    **{
        f"{m} /api/v2/mcp/{r}/{p}": (AuthKind.API_KEY, s)
        for r in ("clients", "policies")
        for m, p, s in (
            ("POST", "", Scope.WRITE),
            ("GET", "{uuid}/", Scope.READ),
            ("GET", "list/", Scope.READ),
            ("PATCH", "{uuid}/update/", Scope.WRITE),
        )
    },
    "GET /api/team/workspace/": (S, None),
    "POST /api/team/invite/": (S, Role.ADMIN),
    "GET /api/team/members/": (S, None),
    "PATCH /api/team/members/{user_id}/": (S, Role.OWNER),
    "DELETE /api/team/members/{user_id}/": (S, Role.ADMIN),
    "GET /api/team/invitations/": (S, Role.ADMIN),
    "POST /api/team/invitations/{invitation_id}/accept/": (T, None),
    "POST /api/team/invitations/{invitation_id}/revoke/": (S, Role.ADMIN),
    "POST /api/team/invitations/{invitation_id}/resend/": (S, Role.ADMIN),
    **{
        f"{m} /api/v2/settings/{p}": (S, None)
        for m, p in (
            ("POST", "api-keys/"),
            ("GET", "api-keys/list/"),
            ("DELETE", "api-keys/{key_id}/"),
            ("POST", "database/"),
            ("GET", "database/get/"),
            ("POST", "database/test/"),
        )
    },
    **{
        f"{m} /api/rules/rules/{p}": (S, None)
        for m, p in (
            ("GET", ""),
            ("GET", "{rule_id}/"),
            ("POST", ""),
            ("PATCH", "{rule_id}/"),
            ("DELETE", "{rule_id}/"),
            ("POST", "simulate/"),
            ("POST", "{rule_id}/execute/"),
        )
    },
    **{
        f"{m} /api/v1/connectors/{p}": (S, None)
        for m, p in (
            ("POST", "email/send/"),
            ("GET", "email/templates/"),
            ("GET", "email/logs/"),
            ("POST", "llm-adaptor/keys"),
            ("GET", "llm-adaptor/keys"),
            ("DELETE", "llm-adaptor/keys/{provider}"),
            ("POST", "llm-adaptor/test"),
        )
    },
}


def _meets(route: Route, kind: AuthKind, grant: Role | Scope | None) -> bool:
    if route.auth.kind is not kind:
        return False
    if isinstance(grant, Role):
        return route.auth.role is not None and route.auth.role.satisfies(grant)
    if grant is Scope.WRITE:
        return route.auth.scope is Scope.WRITE
    if grant is Scope.READ:
        return route.auth.scope in (Scope.READ, Scope.WRITE)
    return True


def test_declarations_demand_at_least_what_the_specification_does():
    by_operation = {declared.operation(mount, route): route for mount, route in ROUTES}
    assert set(SPEC) <= set(by_operation), sorted(set(SPEC) - set(by_operation))
    weaker = [
        f"{op}: declared {by_operation[op].auth.describe()}, specified {kind.value} {grant}"
        for op, (kind, grant) in SPEC.items()
        if not _meets(by_operation[op], kind, grant)
    ]
    assert weaker == []
