"""The studio page's routes: the HTML shell with its Content-Security-Policy, the bundled assets
from package data, and the keyword list the editor derives from the grammar."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from fnmatch import fnmatch

import pytest

from insureops.platform.studio_web.routes import ASSETS, STATIC
from tests.platform.studio_web.conftest import ROOT


async def test_page_is_served_with_a_strict_policy_when_anyone_asks(client):
    response = await client.get("/studio/")
    assert response.status == 200
    assert response.content_type == "text/html"
    page = await response.text()
    policy = response.headers["Content-Security-Policy"]
    nonce = re.search(r'name="csp-nonce" content="([^"]+)"', page).group(1)
    assert f"style-src 'self' 'nonce-{nonce}'" in policy
    for directive in (
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ):
        assert directive in policy
    assert "http" not in policy  # no CDN: nothing but this origin
    assert response.headers["Cache-Control"] == "no-store"
    assert re.search(r'<script type="module" src="assets/studio\.js\?v=[0-9a-f]{12}">', page)


async def test_each_response_gets_a_nonce_of_its_own_when_the_page_is_asked_twice(client):
    first, second = [
        (await client.get("/studio/")).headers["Content-Security-Policy"] for _ in range(2)
    ]
    assert first != second


async def test_assets_are_served_from_package_data_when_named(client):
    for name, content_type in ASSETS.items():
        response = await client.get(f"/studio/assets/{name}")
        assert response.status == 200
        assert response.content_type == content_type
        assert await response.read() == (STATIC / name).read_bytes()
        assert response.headers["X-Content-Type-Options"] == "nosniff"


async def test_unknown_asset_is_not_found_when_asked_for(client):
    assert (await client.get("/studio/assets/routes.py")).status == 404
    assert (await client.get("/studio/assets/..%2Froutes.py")).status in (400, 404)


async def test_page_routes_are_documented_under_their_own_tag_when_the_document_is_built(client):
    document = await (await client.get("/api/openapi.json")).json()
    assert document["paths"]["/studio/"]["get"]["tags"] == ["studio_web"]
    assert "/studio/assets/{filename}" in document["paths"]


def test_package_data_carries_every_asset_when_a_wheel_is_built():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["insureops.platform.studio_web"]
    for name in ASSETS:
        assert (STATIC / name).is_file(), f"{name}: run `npm run build` in web/"
        assert any(fnmatch(f"static/{name}", pattern) for pattern in globs)


def test_editor_keywords_are_the_grammar_words_when_the_bundle_was_built():
    grammar = re.sub(
        r"^\s*//.*$", "", (ROOT / "dsl" / "rules.lark").read_text(), flags=re.MULTILINE
    )
    words = sorted(set(re.findall(r'"([a-z_]+)"', grammar)))
    generated = (ROOT / "web" / "src" / "keywords.generated.ts").read_text()
    listed = json.loads(re.search(r"= (\[.*\]);", generated).group(1))
    assert listed == words, "the grammar changed: run `npm run build` in web/ and commit"
    assert all(f'"{word}"' in (STATIC / "studio.js").read_text() for word in words)


def test_committed_bundle_is_what_its_source_builds_when_node_is_at_hand(tmp_path):
    """Skips without Node or without `npm ci` in web/ (CI needs neither: the bundle is
    committed); where they are, a stale bundle fails here."""
    node = shutil.which("node")
    if node is None or not (ROOT / "web" / "node_modules").is_dir():
        pytest.skip("needs Node and `npm ci` in web/ to rebuild the bundle")
    subprocess.run(
        [node, "build.mjs"],
        cwd=ROOT / "web",
        check=True,
        timeout=120,
        env={**os.environ, "STUDIO_OUT": str(tmp_path)},
        capture_output=True,
    )
    for name in ASSETS:
        assert (tmp_path / name).read_bytes() == (STATIC / name).read_bytes(), (
            f"{name} is stale: run `npm run build` in web/ and commit the bundle"
        )


async def test_studio_without_the_trailing_slash_redirects_to_the_page(client):
    for path, location in (("/studio", "/studio/"), ("/studio?rule=X", "/studio/?rule=X")):
        response = await client.get(path, allow_redirects=False)
        assert response.status == 301
        assert response.headers["Location"] == location
    followed = await client.get("/studio")
    assert followed.status == 200 and followed.content_type == "text/html"
