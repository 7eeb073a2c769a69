"""OpenAPI 3.1 assembled from the route tables: paths, pydantic model schemas, errors, security."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import CoreModeRef, DefsRef, GenerateJsonSchema, models_json_schema

from insureops.platform.auth.requirements import AuthKind, AuthRequirement
from insureops.platform.http.errors import ErrorBody
from insureops.platform.http.origins import SAFE_METHODS
from insureops.platform.http.routing import Mount, Route

REF_TEMPLATE = "#/components/schemas/{model}"

# Models sharing a class name are published under their module's path
# (`insureops__platform__prospects__payloads__ListQuery`); these modules moved (issue 30), and
# their models keep the names the document published.
PUBLISHED_MODULES = {
    "insureops.platform.carrier_finder.market.payloads.":
        "insureops.platform.carrier_finder.payloads.",
    "insureops.platform.http.meta.": "insureops.platform.meta.",
}


class _PublishedNames(GenerateJsonSchema):
    """Component names that outlive a module move (PUBLISHED_MODULES)."""

    def get_defs_ref(self, core_mode_ref: CoreModeRef) -> DefsRef:
        core_ref, mode = core_mode_ref
        for moved, published in PUBLISHED_MODULES.items():
            core_ref = core_ref.replace(moved, published)
        return super().get_defs_ref((core_ref, mode))

SECURITY_SCHEMES = {
    "sessionCookie": {"type": "apiKey", "in": "cookie", "name": "sessionid",
                      "description": "Session cookie set by POST /api/auth/login/."},
    "apiKey": {"type": "http", "scheme": "bearer", "bearerFormat": "iops_ API key",
               "description": "A workspace API key (Settings -> API keys), scopes read/write."},
    "identityJwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                    "description": "An identity-provider JWT (browser extension)."},
}
_SCHEME_OF = {AuthKind.SESSION: "sessionCookie", AuthKind.API_KEY: "apiKey",
              AuthKind.JWT: "identityJwt"}

# status -> (description, the codes it carries); docs/errors.md lists them all.
_ERRORS = {
    400: "Bad request: invalid_json or validation_error (with error.details); bad_request for a "
         "control character in the path or query (any operation) or a malformed request.",
    401: "Missing or invalid credentials: not_authenticated, invalid_api_key.",
    403: "Not allowed: permission_denied, insufficient_scope, origin_not_allowed.",
    404: "not_found: no such resource.",
    409: "conflict: the request conflicts with the current state.",
    410: "Gone: the link or token no longer works.",
    413: "payload_too_large: the body exceeds the limit.",
    415: "unsupported_media_type: the body must be application/json.",
    429: "rate_limited: retry after Retry-After seconds.",
    500: "internal_error: quote the X-Request-ID when reporting it.",
    503: "service_unavailable: the database cannot be reached; retry.",
}
_HEADER = {"schema": {"type": "integer"}}
RATE_LIMIT_HEADERS = {
    "X-RateLimit-Limit": {**_HEADER, "description": "Requests allowed in the window."},
    "X-RateLimit-Remaining": {**_HEADER, "description": "Requests left in the window."},
    "X-RateLimit-Reset": {**_HEADER, "description": "Unix time (s) when the window resets."},
}
REQUEST_ID_HEADER = {"X-Request-ID": {"schema": {"type": "string"},
                                      "description": "The request's id (echoed or generated)."}}


def _collect_models(routes: Iterable[Route]) -> list[tuple[type[BaseModel], str]]:
    found: dict[tuple[type[BaseModel], str], None] = {(ErrorBody, "serialization"): None}
    for route in routes:
        for model in (route.body, route.query, route.path_model):
            if model is not None:
                found[(model, "validation")] = None
        if route.response is not None:
            found[(route.response, "serialization")] = None
    return list(found)


# Text of a path or query parameter: no control character but tab (a request holding one is
# 400 bad_request before any route, platform/http/bodies.py `request_target_middleware`).
CONTROL_FREE = "^[^\\u0000-\\u0008\\u000a-\\u001f\\u007f]*$"


def _control_free(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (a copy) with each free-form string in it limited to `CONTROL_FREE`; strings
    with a format, pattern, enum or const already exclude control characters."""
    if schema.get("type") == "string" and not {"format", "pattern", "enum", "const"} & set(schema):
        return {**schema, "pattern": CONTROL_FREE}
    found = dict(schema)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            found[key] = [_control_free(part) for part in schema[key]]
    if isinstance(schema.get("items"), dict):
        found["items"] = _control_free(schema["items"])
    return found


def _security(auth: AuthRequirement) -> list[dict[str, list[str]]]:
    scheme = _SCHEME_OF.get(auth.kind)
    return [{scheme: []}] if scheme else []


def _error_statuses(route: Route) -> list[int]:
    statuses = {400, 500, 503, *route.errors}  # 400: a control character in path or query
    if route.body:
        statuses |= {413, 415}
    if route.path_parameters():
        statuses.add(404)
    if route.auth.kind in _SCHEME_OF:
        statuses.add(401)
    if route.auth.role or route.auth.scope or route.auth.kind is AuthKind.SESSION:
        statuses.add(403)
    if route.method not in SAFE_METHODS:  # origin_not_allowed, sign-up and login included
        statuses.add(403)
    if route.rate_limit:
        statuses.add(429)
    return sorted(statuses)


class _Builder:
    def __init__(self, mounts: tuple[Mount, ...]) -> None:
        self.mounts = mounts
        routes = [route for mount in mounts for route in mount.table.routes if route.documented]
        refs, top = models_json_schema(_collect_models(routes), ref_template=REF_TEMPLATE,
                                       schema_generator=_PublishedNames)
        self.refs = refs
        self.schemas: dict[str, Any] = top.get("$defs", {})

    def ref(self, model: type[BaseModel], mode: str) -> dict[str, Any]:
        return self.refs[(model, mode)]

    def component(self, model: type[BaseModel]) -> dict[str, Any]:
        name = self.ref(model, "validation")["$ref"].rsplit("/", 1)[1]
        return self.schemas[name]

    def parameters(self, route: Route) -> list[dict[str, Any]]:
        result = []
        path_schema = self.component(route.path_model) if route.path_model else {}
        for name in route.path_parameters():
            schema = path_schema.get("properties", {}).get(name, {"type": "string"})
            result.append({"name": name, "in": "path", "required": True,
                           "schema": _control_free(schema)})
        if route.query is not None:
            query = self.component(route.query)
            required = set(query.get("required", []))
            for name, schema in query.get("properties", {}).items():
                parameter = {"name": name, "in": "query", "required": name in required,
                             "schema": _control_free(schema)}
                if "description" in schema:
                    parameter["description"] = schema["description"]
                result.append(parameter)
        return result

    def success(self, route: Route) -> dict[str, Any]:
        response: dict[str, Any] = {"description": route.summary,
                                    "headers": dict(REQUEST_ID_HEADER)}
        if route.rate_limit:
            response["headers"].update(RATE_LIMIT_HEADERS)
        if route.response is not None:
            schema = self.ref(route.response, "serialization")
            response["content"] = {route.content_type: {"schema": schema}}
        elif route.content_type != "application/json":
            response["content"] = {route.content_type: {"schema": {"type": "string"}}}
        return response

    def error(self, status: int, route: Route) -> dict[str, Any]:
        headers = dict(REQUEST_ID_HEADER)
        if status == 429:
            headers.update(RATE_LIMIT_HEADERS)
            headers["Retry-After"] = {**_HEADER, "description": "Seconds until the reset."}
        if status == 405:
            headers["Allow"] = {"schema": {"type": "string"}}
        return {"description": _ERRORS.get(status, "Error."), "headers": headers,
                "content": {"application/json": {"schema": self.ref(ErrorBody, "serialization")}}}

    def operation(self, mount: Mount, route: Route) -> dict[str, Any]:
        description = route.description
        if route.rate_limit:
            description = f"{description}\n\nRate limit: {route.rate_limit.describe()}.".strip()
        operation: dict[str, Any] = {
            "tags": [mount.table.tag], "summary": route.summary,
            "operationId": f"{mount.table.tag}_{route.name}",
            "security": _security(route.auth),
            "x-insureops-auth": route.auth.describe(),
            "responses": {str(route.status): self.success(route),
                          **{str(s): self.error(s, route) for s in _error_statuses(route)}},
        }
        if description:
            operation["description"] = description
        if parameters := self.parameters(route):
            operation["parameters"] = parameters
        if route.body is not None:
            operation["requestBody"] = {"required": True, "content": {
                "application/json": {"schema": self.ref(route.body, "validation")}}}
        if route.deprecated:
            operation["deprecated"] = True
        return operation

    def paths(self) -> dict[str, dict[str, Any]]:
        paths: dict[str, dict[str, Any]] = {}
        operation_ids: set[str] = set()
        for mount in self.mounts:
            for route in (r for r in mount.table.routes if r.documented):
                operation = self.operation(mount, route)
                if operation["operationId"] in operation_ids:
                    raise ValueError(f"duplicate operationId {operation['operationId']}")
                operation_ids.add(operation["operationId"])
                paths.setdefault(mount.full_path(route), {})[route.method.lower()] = operation
        return paths


class OpenApiOnDemand:
    """The app's OpenAPI document, built on first use and kept: building it (pydantic's JSON
    Schemas of every model) is most of `create_app`'s cost, and most apps (every test's) never
    serve it."""

    def __init__(self, mounts: tuple[Mount, ...], *, title: str, version: str) -> None:
        self._arguments = (mounts, title, version)
        self._document: dict[str, Any] | None = None

    def get(self) -> dict[str, Any]:
        if self._document is None:
            mounts, title, version = self._arguments
            self._document = build_openapi(mounts, title=title, version=version)
        return self._document


def build_openapi(mounts: tuple[Mount, ...], *, title: str, version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every documented route under `mounts`."""
    builder = _Builder(mounts)
    paths = builder.paths()
    tags = {}
    for mount in mounts:
        tags.setdefault(mount.table.tag, {"name": mount.table.tag,
                                          "description": mount.table.description})
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version,
                 "description": "Errors: {\"error\": {\"code\", \"message\"}} (docs/errors.md). "
                 "No text field accepts NUL (U+0000) or an unpaired surrogate: 400 "
                 "validation_error. A path or query holding a control character (tab aside) "
                 "is 400 bad_request on every operation."},
        "servers": [{"url": "/"}],
        "tags": list(tags.values()),
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(builder.schemas.items())),
                       "securitySchemes": SECURITY_SCHEMES},
    }
