"""The service's own routes: OpenAPI document, Swagger UI from local files, health, and the
JWKS of the keys the service signs its own tokens with."""

from __future__ import annotations

import datetime
import html
import importlib.util
from pathlib import Path

from aiohttp import web
from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Auth
from insureops.platform.auth.service_tokens import JWKS_PATH
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import CLOCK, DATABASE, OPENAPI_DOCUMENT
from insureops.platform.migrations import current_revision
from insureops.platform.records.signing_keys import published_jwks

DOCS_PATH = "/api/docs"
OPENAPI_PATH = "/api/openapi.json"
# swagger-ui-py's bundled Swagger UI files, found without importing it (it imports PyYAML)
SWAGGER_ASSETS = Path(importlib.util.find_spec("swagger_ui").origin).parent / "static"
_ASSETS = ("swagger-ui.css", "index.css", "swagger-ui-bundle.js",
           "swagger-ui-standalone-preset.js", "favicon-32x32.png", "favicon-16x16.png")

routes = RouteTable("service", "The service itself: API description, documentation, health.")


class OpenApiDocument(BaseModel):
    """An OpenAPI 3.1 document."""

    model_config = {"extra": "allow"}

    openapi: str
    info: dict[str, object]
    paths: dict[str, object]


class AssetPath(BaseModel):
    filename: str = Field(pattern="^[A-Za-z0-9._-]+$", description="A Swagger UI asset file.")


class Jwks(BaseModel):
    """A JSON Web Key Set (RFC 7517): public keys only."""

    keys: list[dict[str, object]] = Field(description="The current signing key and any "
                                          "previous one still in its overlap window.")


class Health(BaseModel):
    status: str = Field(description="'ok' when the service and its database answer.")
    database_revision: str | None = Field(description="Applied platform migration.")


@routes.get(OPENAPI_PATH, response=OpenApiDocument, auth=Auth.NONE,
            summary="This API's OpenAPI 3.1 description")
async def openapi_document(call: Call[None, None]) -> web.StreamResponse:
    return web.json_response(call.request.config_dict[OPENAPI_DOCUMENT].get())


def swagger_page(title: str) -> str:
    """Swagger UI's page, pointing at our document and at assets served by this service."""
    assets = f"{DOCS_PATH}/static"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>{html.escape(title)}</title>
<link rel="stylesheet" type="text/css" href="{assets}/swagger-ui.css">
<link rel="stylesheet" type="text/css" href="{assets}/index.css">
<link rel="icon" type="image/png" href="{assets}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{assets}/swagger-ui-bundle.js" charset="UTF-8"></script>
<script src="{assets}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
<script>
window.onload = function () {{
  window.ui = SwaggerUIBundle({{
    url: "{OPENAPI_PATH}", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: "StandaloneLayout",
  }});
}};
</script>
</body>
</html>
"""


@routes.get(DOCS_PATH, response=None, auth=Auth.NONE, content_type="text/html",
            summary="Swagger UI (served from local files)")
async def docs_page(call: Call[None, None]) -> web.Response:
    return web.Response(text=swagger_page("insureops API"), content_type="text/html")


@routes.get(f"{DOCS_PATH}/", response=None, auth=Auth.NONE, status=301, content_type="text/html",
            summary="Swagger UI with a trailing slash: redirects to /api/docs")
async def docs_redirect(call: Call[None, None]) -> web.Response:
    """`/api/docs/` is what many type (every API path here ends in a slash); it was a 404."""
    query = call.request.rel_url.raw_query_string  # as sent: `%26` must not become `&`
    location = DOCS_PATH + (f"?{query}" if query else "")
    link = html.escape(location)
    return web.Response(status=301, text=f'<!DOCTYPE html><a href="{link}">{link}</a>',
                        content_type="text/html", headers={"Location": location})


@routes.get(f"{DOCS_PATH}/static/{{filename}}", response=None, auth=Auth.NONE,
            path_model=AssetPath, content_type="application/octet-stream",
            summary="A Swagger UI asset")
async def docs_asset(call: Call[None, None]) -> web.StreamResponse:
    if call.path.filename not in _ASSETS:
        raise web.HTTPNotFound()
    return web.FileResponse(Path(SWAGGER_ASSETS, call.path.filename),
                            headers={"Cache-Control": "public, max-age=86400"})


@routes.get("/api/health/", response=Health, auth=Auth.NONE,
            summary="Liveness and database reachability")
async def health(call: Call[None, None]) -> Health:
    database = call.request.config_dict[DATABASE]
    await database.ping()  # unreachable: the error middleware answers 503
    return Health(status="ok", database_revision=await current_revision(database.engine))


@routes.get(JWKS_PATH, response=Jwks, auth=Auth.NONE,
            summary="The public keys of the service's own tokens (JWKS)",
            description="The keys that verify the tokens of POST /api/auth/token/: the current "
            "one and, after `insureops rotate-keys`, the previous one until its overlap window "
            "ends. Empty until the first token is issued.")
async def jwks(call: Call[None, None]) -> web.StreamResponse:
    config = call.request.config_dict
    now = datetime.datetime.fromtimestamp(config[CLOCK](), datetime.UTC)
    document = await call.read(lambda uow: published_jwks(uow, now))
    return web.json_response(document, headers={"Cache-Control": "public, max-age=60"})
