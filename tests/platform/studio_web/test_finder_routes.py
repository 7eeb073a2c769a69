"""The carrier finder page's routes (/finder/): the HTML shell with its landmarks and strict
policy, its own bundle from package data, and the redirect without the trailing slash."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from insureops.platform.studio_web.finder import ASSETS
from insureops.platform.studio_web.routes import STATIC
from tests.platform.studio_web.conftest import ROOT


async def test_finder_page_is_served_with_a_strict_policy_and_its_own_bundle(client):
    response = await client.get("/finder/")
    assert response.status == 200 and response.content_type == "text/html"
    page = await response.text()
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "http" not in policy  # no CDN
    assert re.search(r'<script type="module" src="assets/finder\.js\?v=[0-9a-f]{12}">', page)
    assert 'href="#main"' in page and '<html lang="en">' in page


async def test_finder_assets_are_served_when_named_and_nothing_else(client):
    for name, content_type in ASSETS.items():
        response = await client.get(f"/finder/assets/{name}")
        assert response.status == 200 and response.content_type == content_type
        assert await response.read() == (STATIC / name).read_bytes()
    assert (await client.get("/finder/assets/studio.js")).status == 404
    assert (await client.get("/finder/assets/finder.py")).status == 404


async def test_finder_without_the_trailing_slash_redirects_to_the_page(client):
    response = await client.get("/finder?x=1", allow_redirects=False)
    assert response.status == 301 and response.headers["Location"] == "/finder/?x=1"


def test_committed_finder_bundle_is_what_its_source_builds_when_node_is_at_hand(tmp_path):
    node = shutil.which("node")
    if node is None or not (ROOT / "web" / "node_modules").is_dir():
        pytest.skip("needs Node and `npm ci` in web/ to rebuild the bundle")
    subprocess.run([node, "build.mjs"], cwd=ROOT / "web", check=True, timeout=120,
                   env={**os.environ, "STUDIO_OUT": str(tmp_path)}, capture_output=True)
    for name in ASSETS:
        assert (tmp_path / name).read_bytes() == (STATIC / name).read_bytes(), (
            f"{name} is stale: run `npm run build` in web/ and commit the bundle")
