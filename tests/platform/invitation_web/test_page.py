"""The invitation page's HTTP side (issue 33: the e-mailed link was a 404): the shell with a
strict policy, its own bundle as package data, and a committed bundle that matches its source."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from insureops.platform.invitation_web.routes import ASSETS, STATIC
from insureops.platform.team.invitations import accept_link

ROOT = Path(__file__).resolve().parents[3]
INVITATION_ID = "01KB2Z8X7Q4M2N5P6R7S8T9V0W"


async def test_the_e_mailed_link_serves_the_page_with_a_strict_policy(client):
    link = accept_link("http://127.0.0.1:8080", INVITATION_ID, "tok_en-43chars")
    response = await client.get(link.removeprefix("http://127.0.0.1:8080"))
    assert response.status == 200 and response.content_type == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "'unsafe-inline'" not in policy and "frame-ancestors 'none'" in policy
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    page = await response.text()
    assert "tok_en" not in page  # the server renders nothing of the link
    for name in ASSETS:
        assert f"/invitations/assets/{name}?v=" in page


async def test_assets_are_served_and_unknown_ones_are_404(client):
    for name, content_type in ASSETS.items():
        response = await client.get(f"/invitations/assets/{name}")
        assert response.status == 200 and response.content_type == content_type
    missing = await client.get("/invitations/assets/studio.js")
    assert missing.status == 404
    assert (await missing.json())["error"]["code"] == "not_found"


async def test_an_id_that_cannot_be_an_invitation_is_400_in_the_error_shape(client):
    response = await client.get("/invitations/..%2F..%2Fetc/accept")
    assert response.status in (400, 404)
    assert "error" in await response.json()


def test_committed_bundle_is_what_its_source_builds_when_node_is_at_hand(tmp_path):
    """Skips without Node or `npm ci` in web/ (the bundle is committed); a stale one fails."""
    node = shutil.which("node")
    if node is None or not (ROOT / "web" / "node_modules").is_dir():
        pytest.skip("needs Node and `npm ci` in web/ to rebuild the bundle")
    subprocess.run([node, "build.mjs"], cwd=ROOT / "web", check=True, timeout=120,
                   capture_output=True, env={**os.environ, "STUDIO_OUT": str(tmp_path / "s"),
                                             "INVITATION_OUT": str(tmp_path)})
    for name in ASSETS:
        assert (tmp_path / name).read_bytes() == (STATIC / name).read_bytes(), (
            f"{name} is stale: run `npm run build` in web/ and commit the bundle")
