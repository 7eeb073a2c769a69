"""OpenAPI 3.1: valid, complete (every served route documented), built from the route models."""

from __future__ import annotations

import re

from aiohttp import web
from openapi_spec_validator import OpenAPIV31SpecValidator

from insureops.platform.app import create_app
from insureops.platform.keys import OPENAPI_DOCUMENT
from tests.conftest import SQLITE_ONLY

pytestmark = SQLITE_ONLY  # the route declarations: the store is not the point

_PARAMETER = re.compile(r"\{(\w+)(?::[^}]*)?\}")


def served_operations(app: web.Application) -> set[tuple[str, str]]:
    """(METHOD, OpenAPI path) of every route the app serves, sub-applications included."""
    found = set()
    for resource in app.router.resources():
        info = resource.get_info()
        if "app" in info:  # a mounted sub-application: its paths already carry the prefix
            found |= served_operations(info["app"])
            continue
        path = info.get("path") or info.get("formatter") or info.get("prefix")
        for route in resource:
            if route.method != "*":
                found.add((route.method, _PARAMETER.sub(r"{\1}", path)))
    return found


def documented_operations(document: dict) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, item in document["paths"].items() for method in item}


async def test_document_validates_as_openapi_3_1_when_served(client):
    response = await client.get("/api/openapi.json")
    assert response.status == 200
    document = await response.json()
    assert document["openapi"] == "3.1.0"
    OpenAPIV31SpecValidator(document).validate()


def test_every_served_route_is_documented_when_the_app_is_built(settings):
    app = create_app(settings)
    served = served_operations(app)
    documented = documented_operations(app[OPENAPI_DOCUMENT].get())
    assert ("GET", "/api/auth/profile/") in served
    assert served <= documented, f"undocumented routes: {sorted(served - documented)}"
    assert documented <= served, f"documented but not served: {sorted(documented - served)}"


def test_completeness_check_fails_when_a_route_bypasses_the_route_table(settings):
    app = create_app(settings)

    async def sneaky(request: web.Request) -> web.Response:
        return web.Response()

    app.router.add_get("/api/sneaky/", sneaky)
    missing = served_operations(app) - documented_operations(app[OPENAPI_DOCUMENT].get())
    assert missing == {("GET", "/api/sneaky/"), ("HEAD", "/api/sneaky/")}


async def test_probe_routes_are_documented_with_models_errors_and_limits(probe):
    document = probe.app[OPENAPI_DOCUMENT].get()
    assert served_operations(probe.app) == documented_operations(document)
    OpenAPIV31SpecValidator(document).validate()
    echo = document["paths"]["/api/probe/echo/"]["post"]
    assert echo["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/EchoBody"}
    assert set(echo["responses"]) == {"201", "400", "403", "413", "415", "500", "503"}
    error_schema = echo["responses"]["400"]["content"]["application/json"]["schema"]
    assert error_schema == {"$ref": "#/components/schemas/ErrorBody"}
    item = document["paths"]["/api/probe/items/{item_id}/"]["get"]
    parameters = {(p["in"], p["name"]): p for p in item["parameters"]}
    assert parameters[("path", "item_id")]["schema"]["format"] == "uuid"
    assert parameters[("query", "limit")]["schema"]["maximum"] == 200
    limited = document["paths"]["/api/probe/limited/"]["post"]
    assert "429" in limited["responses"]
    assert "Retry-After" in limited["responses"]["429"]["headers"]
    assert "X-RateLimit-Reset" in limited["responses"]["200"]["headers"]
    guarded = document["paths"]["/api/probe/guarded/"]["get"]
    assert guarded["security"] == [{"sessionCookie": []}]
    assert {"401", "403"} <= set(guarded["responses"])


def test_profile_operation_describes_the_profile_and_session_auth_when_built(settings):
    document = create_app(settings)[OPENAPI_DOCUMENT].get()
    profile = document["paths"]["/api/auth/profile/"]["get"]
    assert profile["tags"] == ["accounts"]
    assert profile["security"] == [{"sessionCookie": []}]
    ok = profile["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/ProfileResponse"}
    schema = document["components"]["schemas"]["ProfileResponse"]
    assert set(schema["properties"]) == {"user", "workspaces", "active_workspace"}
    assert set(document["components"]["securitySchemes"]) == {
        "sessionCookie", "apiKey", "identityJwt"}
    assert {tag["name"] for tag in document["tags"]} >= {
        "accounts", "carrier_finder", "prospects", "mcp", "team", "settings", "rules_studio",
        "connectors", "service"}


def test_unsafe_operations_document_403_when_they_need_no_credentials(settings):
    # The Origin middleware answers 403 origin_not_allowed to a cookie-borne POST/PUT/PATCH/
    # DELETE from a foreign origin, sign-up and verify included; their documents left it out.
    document = create_app(settings)[OPENAPI_DOCUMENT].get()
    for path in ("/api/auth/signup/", "/api/auth/verify/", "/api/auth/resend-code/"):
        assert "403" in document["paths"][path]["post"]["responses"], path
    assert "403" not in document["paths"]["/api/health/"]["get"]["responses"]


def test_document_is_built_once_and_only_when_first_asked_for(settings):
    """Building it was 94 of create_app's 99 ms, paid by every test's app."""
    holder = create_app(settings)[OPENAPI_DOCUMENT]
    assert holder._document is None
    assert holder.get() is holder.get()


def test_models_sharing_a_name_keep_their_published_names_when_their_modules_move(settings):
    """Issue 30 moved the carrier finder's payloads and the meta routes into packages; the
    document's component names, which carry a module path for same-named models, stayed."""
    schemas = create_app(settings)[OPENAPI_DOCUMENT].get()["components"]["schemas"]
    assert {"insureops__platform__carrier_finder__payloads__ListQuery",
            "insureops__platform__meta__AssetPath",
            "insureops__platform__prospects__payloads__ListQuery",
            "insureops__platform__studio_web__routes__AssetPath"} <= set(schemas)


def _walk(node):
    """Every mapping inside a JSON document."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_bounds_are_written_in_json_schema_words_when_documented(settings):
    """schemathesis (positive_data_acceptance) sent max_limit 0 to POST own products: pydantic
    wrote the bounds of an int-or-float field as `gt`/`le`, names JSON Schema does not know."""
    document = create_app(settings)[OPENAPI_DOCUMENT].get()
    stray = [sorted(node) for node in _walk(document)
             if "type" in node or "anyOf" in node
             if {"gt", "ge", "lt", "le"} & set(node)]
    assert stray == []
    product = document["components"]["schemas"]["ProductCreate"]["properties"]["max_limit"]
    assert product["exclusiveMinimum"] == 0


def test_distinct_binding_events_are_documented_as_unique_items(settings):
    """schemathesis sent `on: ["created", "created"]`, schema-valid until uniqueItems said no."""
    schemas = create_app(settings)[OPENAPI_DOCUMENT].get()["components"]["schemas"]
    on = next(model["properties"]["on"] for model in schemas.values()
              if "record_type" in model.get("properties", {}) and "on" in model["properties"])
    assert on["uniqueItems"] is True
