"""The service's own routes: Swagger UI from local files (no CDN), health."""

from __future__ import annotations

import re

from insureops.platform.migrations import head_revision

URL = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")


async def test_swagger_page_loads_only_local_assets_when_served(client):
    response = await client.get("/api/docs")
    assert response.status == 200
    assert response.content_type == "text/html"
    page = await response.text()
    assert "/api/openapi.json" in page
    assert "http://" not in page and "https://" not in page and "//cdn" not in page
    assets = URL.findall(page)
    assert assets and all(asset.startswith("/api/docs/static/") for asset in assets)
    for asset in assets:
        served = await client.get(asset)
        assert served.status == 200, asset
        assert len(await served.read()) > 100


async def test_docs_with_a_trailing_slash_redirects_to_swagger_ui_when_asked_issue_33(client):
    response = await client.get("/api/docs/?tag=rules", allow_redirects=False)
    assert response.status == 301
    assert response.headers["Location"] == "/api/docs?tag=rules"
    followed = await client.get("/api/docs/")
    assert followed.status == 200 and "/api/openapi.json" in await followed.text()


async def test_swagger_asset_is_404_when_the_file_is_not_an_asset(client):
    for path in ("/api/docs/static/swagger-initializer.js", "/api/docs/static/..%2Fcore.py"):
        response = await client.get(path)
        assert response.status == 404
        assert (await response.json())["error"]["code"] == "not_found"


async def test_health_reports_the_migrated_revision_when_the_database_answers(client):
    response = await client.get("/api/health/")
    assert response.status == 200
    assert await response.json() == {"status": "ok", "database_revision": head_revision()}
