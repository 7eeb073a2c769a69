"""Issue 28: hostile header values, credentials, cursor contents and path ids on every route.

Four sweeps over the declared route table, each one test per backend that loops over the routes
in-process and collects every wrong answer (a 5xx, a 4xx outside the `{"error": {"code",
"message"}}` shape, or an acceptance where a refusal is due), so one run names every route a
class of input breaks, and a route declared tomorrow is swept without being listed:

- header values: non-ASCII digits and text, invalid UTF-8 and 8,000-character values in every
  header the service reads (a test below finds those in its source), with A's credential;
- credentials: bearer tokens signed by the trusted key with odd JOSE headers (`kid: 5`, `crit`),
  bearer values and session cookies of each class, by the route's kind of credential;
- path parameters: ids past 31, 63 and 64 bits, non-ASCII digits, NUL, lone surrogates;
- cursors: a cursor each listing issued, its key replaced by NUL, a lone surrogate, non-ASCII
  digits, numbers past 63 bits, and cursors that are not base64 or not JSON.

Requests go over a raw socket (tests/platform/security/hostile.py): no HTTP client sends a
header that is not UTF-8. The world's proxy is trusted, so X-Forwarded-For is read.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from insureops.platform.auth.requirements import AuthKind
from insureops.platform.http.routing import Mount, Route
from tests.platform.security import hostile
from tests.platform.security.conftest import IDP_AUDIENCE, IDP_ISSUER, IDP_KEY, World
from tests.platform.security.declared import (
    BODIES,
    ROUTES,
    STRONGEST,
    filled_path,
    object_keys,
    operation,
    valid_body,
)
from tests.platform.workspaces import PASSWORD

# The request headers the service reads besides its credentials (Authorization, Cookie: swept
# by kind of credential) and Origin (swept on its own: it refuses before anything else runs).
READ_HEADERS = ("If-Match", "X-Forwarded-For", "X-Request-ID", "User-Agent")
SWEPT_HEADERS = {*READ_HEADERS, "Origin", "Authorization", "Cookie"}

# Valid bodies beyond the matrix's, so that requests reach what reads a header after the body:
# the address rate limits of the public routes, the audit log's User-Agent of the tenant API.
SWEEP_BODIES: dict[str, dict[str, Any]] = {
    **BODIES,
    "SignupRequest": {"email": "hostile@example.test", "password": "a long enough password"},
    "ResendCodeRequest": {"email": "hostile@example.test"},
    "LoginRequest": {"email": "member@a.test", "password": PASSWORD},  # A's member logs in
    "ClassifyRequest": {"description": "electrical contractor"},
    "ClientCreate": {"name": "Hostile headers"},
}

LIST_ROUTES = [(mount, route) for mount, route in ROUTES
               if route.query is not None and "cursor" in route.query.model_fields]


@pytest.fixture(scope="module")
def world_settings() -> dict[str, Any]:
    return {"trusted_proxy": True}


def body_for(route: Route) -> dict[str, Any] | None:
    if route.body is not None and route.body.__name__ in SWEEP_BODIES:
        return SWEEP_BODIES[route.body.__name__]
    return valid_body(route.body)


def credential_of_a(world: World, route: Route) -> dict[str, str]:
    return world.credentials[STRONGEST[route.auth.kind]]


def own_credential(world: World, route: Route) -> dict[str, str]:
    """B's own credential for `route`, which names B's objects: the request gets past the
    ownership check to whatever reads the hostile part after it."""
    b = world.b
    return {AuthKind.SESSION: b.owner.headers, AuthKind.API_KEY: world.bearer(b.key),
            AuthKind.JWT: world.bearer(world.token(b.subject))}.get(route.auth.kind, {})


def reaching_credential(world: World, route: Route) -> dict[str, str]:
    """B's own credential for reads; A's for changes, which B's objects refuse (404) and A's
    workspace takes: a sweep must not archive, revoke or delete what the others read."""
    if route.method == "GET":
        return own_credential(world, route)
    return credential_of_a(world, route)


class Sweep:
    """Sends hostile requests to the world's service and keeps every wrong answer."""

    def __init__(self, world: World) -> None:
        server = world.client.server
        self.address = (server.host, server.port)
        self.problems: list[str] = []
        self.sent = 0

    async def check(self, case: str, method: str, target: str, headers: dict[str, hostile.Value],
                    body: Any, *, refused: bool) -> hostile.Answer:
        answer = await hostile.send(self.address, method, target, headers, body)
        self.sent += 1
        problem = answer.problem(refused)
        if problem is not None:
            self.problems.append(f"{method} {target[:120]} | {case}: {problem}")
        return answer

    def assert_no_problems(self) -> None:
        listed = "\n".join(self.problems[:80])
        assert not self.problems, f"{len(self.problems)} of {self.sent} answers:\n{listed}"


def _logout_last(routes: list[tuple[Mount, Route]]) -> list[tuple[Mount, Route]]:
    """A's session must outlive the sweep: the route that ends it goes last."""
    return sorted(routes, key=lambda item: item[1].name == "logout")


@pytest.mark.asyncio(loop_scope="module")
async def test_header_values_are_refused_in_the_error_shape_when_non_ascii_or_oversized(
        world: World):
    """Every header the service reads holds the value at once; where Origin refuses first (an
    unsafe request), the request is sent again without it, so the others are read too."""
    sweep = Sweep(world)
    for mount, route in _logout_last(ROUTES):
        path, body = filled_path(mount, route, world.objects), body_for(route)
        credential = reaching_credential(world, route)
        for name, value in hostile.HEADER_VALUES.items():
            headers = {**credential, **dict.fromkeys(READ_HEADERS, value)}
            answer = await sweep.check(name, route.method, path, {**headers, "Origin": value},
                                       body, refused=False)
            if answer.status == 403 and b"origin_not_allowed" in answer.body:
                await sweep.check(f"{name}, no Origin", route.method, path, headers, body,
                                  refused=False)
    sweep.assert_no_problems()


def _odd_credentials(world: World, route: Route) -> list[tuple[str, dict[str, hostile.Value],
                                                                bool]]:
    """(case, headers, must be refused) for the route's kind of credential: odd tokens where
    an identity-provider token is read, odd bearer values where an API key is, odd cookies
    where a session is; a public route gets odd bearers and cookies at once."""
    kind = route.auth.kind
    bearers = [(f"bearer {case}", value) for case, value in hostile.BEARER_VALUES.items()]
    cookies = [(f"cookie {case}", value) for case, value in hostile.COOKIE_VALUES.items()]
    if kind is AuthKind.JWT:
        claims = {"iss": IDP_ISSUER, "aud": IDP_AUDIENCE, "sub": world.a.subject,
                  "exp": int(world.clock()) + 3600}
        tokens = [(f"JWT {case}", {"Authorization": "Bearer " + hostile.signed_token(
            header, claims, IDP_KEY)}, refused)
            for case, (header, refused) in hostile.JWT_HEADERS.items()]
        return tokens + [(case, {"Authorization": value}, True) for case, value in bearers]
    if kind is AuthKind.API_KEY:
        return [(case, {"Authorization": value}, True) for case, value in bearers]
    if kind is AuthKind.SESSION:
        return [(case, {"Cookie": value}, True) for case, value in cookies]
    return [(f"{bearer} and {cookie}", {"Authorization": token, "Cookie": session}, False)
            for (bearer, token), (cookie, session) in zip(bearers, cookies, strict=True)]


@pytest.mark.asyncio(loop_scope="module")
async def test_credentials_are_refused_in_the_error_shape_when_odd_on_any_route(world: World):
    sweep = Sweep(world)
    for mount, route in ROUTES:
        path, body = filled_path(mount, route, world.objects), body_for(route)
        for case, headers, refused in _odd_credentials(world, route):
            await sweep.check(case, route.method, path, headers, body, refused=refused)
    sweep.assert_no_problems()


def path_with(mount: Mount, route: Route, objects: dict[str, str], name: str, value: str) -> str:
    """The route's path naming B's objects, but with `value` as its parameter `name`."""
    path = mount.full_path(route)
    for key, parameter in zip(object_keys(path), route.path_parameters(), strict=True):
        found = value if parameter == name else objects.get(key, "0")
        path = path.replace(f"{{{parameter}}}", found, 1)
    return path


@pytest.mark.asyncio(loop_scope="module")
async def test_path_ids_are_refused_in_the_error_shape_when_past_63_bits_or_not_ascii(
        world: World):
    """B's own credential on B's objects: the hostile parameter is the only thing wrong."""
    sweep = Sweep(world)
    for mount, route in ROUTES:
        credential, body = own_credential(world, route), body_for(route)
        for parameter in route.path_parameters():
            for case, value in hostile.PATH_VALUES.items():
                path = path_with(mount, route, world.objects, parameter, value)
                await sweep.check(f"{parameter}: {case}", route.method, path, credential, body,
                                  refused=True)
    sweep.assert_no_problems()


async def _issued_cursor(sweep: Sweep, path: str, credential: dict[str, str]) -> dict[str, Any]:
    """The next_cursor of a one-item first page, decoded: the template of the hostile cursors,
    so they carry whatever the listing binds its cursors to (`second_items` gives the listings
    that bind theirs two items)."""
    answer = await sweep.check("one-item page", "GET", f"{path}?limit=1", credential, None,
                               refused=False)
    assert answer.status == 200, f"{path}: {answer.body[:200]!r}"
    cursor = json.loads(answer.body)["next_cursor"]
    if cursor is None:  # a listing of one item: its cursors' bindings are not known
        return {"v": 1}
    return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def second_items(world: World) -> None:
    """A second prospect and execution of B's, so that every listing of B's has two pages."""
    headers = world.bearer(world.token(world.b.subject))
    await world.ok("POST", "/api/v1/carrier_finder/clients/", headers,
                   {"company_name": "B's second prospect"}, 201)
    rule_id = world.objects["rules/{rule_id}"]
    await world.ok("POST", f"/api/rules/rules/{rule_id}/execute/", world.b.owner.headers,
                   {"inputs": {"claim": {"amount": 1}}})
    await world.ok("POST", "/api/v2/mcp/policies/", world.bearer(world.b.key),
                   {"client_id": world.objects["client id"], "policy_number": "B-2"}, 201)
    await world.ok("POST", "/api/v2/mcp/clients/", world.bearer(world.b.key),
                   {"name": "B's second client"}, 201)


@pytest.mark.asyncio(loop_scope="module")
async def test_cursors_are_refused_in_the_error_shape_when_their_contents_are_hostile(
        world: World, second_items):
    sweep = Sweep(world)
    for mount, route in LIST_ROUTES:
        path, credential = filled_path(mount, route, world.objects), own_credential(world, route)
        template = await _issued_cursor(sweep, path, credential)
        for case, (cursor, refused) in hostile.cursor_contents(template).items():
            await sweep.check(case, "GET", f"{path}?limit=1&cursor={cursor}", credential, None,
                              refused=refused)
    sweep.assert_no_problems()


def test_every_list_route_is_swept_for_cursors():
    assert {operation(m, r) for m, r in LIST_ROUTES} >= {
        "GET /api/rules/rules/", "GET /api/rules/rules/{rule_id}/executions/",
        "GET /api/v1/carrier_finder/clients/", "GET /api/v2/mcp/clients/list/"}


# A read of a request header or cookie; the argument as written (a name other than a string
# literal, hdrs.X or a constant, is not recognised as a swept header: the test then fails).
_HEADER_READ = re.compile(
    r"""request\.(headers|cookies)(?:\.get(?:all|one)?\(|\[)\s*([^,)\]]+)""")


def headers_read(source: str) -> set[str]:
    """The request headers `source` reads ("Cookie" for any cookie)."""
    return {"Cookie" if kind == "cookies" else argument.strip().strip("\"'")
            for kind, argument in _HEADER_READ.findall(source)}


def test_every_header_the_service_reads_is_swept():
    """Reading a new request header puts it in the sweep: this fails until READ_HEADERS has it."""
    platform = Path(__file__).resolve().parents[3] / "platform"
    read = set().union(*(headers_read(source.read_text()) for source in platform.rglob("*.py")))
    assert read - SWEPT_HEADERS == set()
    assert {"If-Match", "X-Forwarded-For", "Authorization", "Cookie"} <= read
