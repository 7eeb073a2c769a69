"""The web pages' shell and assets: one page shell (the studio's and the finder's) and one asset
handler for the studio, the finder and the invitation page, each serving its own static folder.
A page's bundle is versioned by its bytes, so a new bundle is never served from a stale cache.
"""

from __future__ import annotations

import functools
import hashlib
import html
from collections.abc import Mapping
from pathlib import Path

from aiohttp import web

ASSET_CACHE = "public, max-age=3600"


@functools.cache
def asset_version(static: Path, filename: str) -> str:
    """A digest of the asset's bytes (the `?v=` of its link)."""
    return hashlib.sha256((static / filename).read_bytes()).hexdigest()[:12]


def page_shell(static: Path, nonce: str, title: str, bundle: str) -> str:
    """A page of the web app: its bundle (`<bundle>.js`, `.css` in `static`) fills `#app`; a
    skip link and a no-script line around it."""
    js, css = (f"assets/{bundle}{kind}?v={asset_version(static, bundle + kind)}"
               for kind in (".js", ".css"))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csp-nonce" content="{html.escape(nonce)}">
<title>{html.escape(title)} · insureops</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{css}">
<script type="module" src="{js}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<div id="app"><noscript>The {html.escape(title.lower())} needs JavaScript.</noscript></div>
</body>
</html>
"""


def page_asset(static: Path, assets: Mapping[str, str], filename: str,
               headers: Mapping[str, str]) -> web.FileResponse:
    """The page's file `filename` from `static` with its content type (`assets`), cached an
    hour; any name `assets` does not list is 404."""
    content_type = assets.get(filename)
    if content_type is None:
        raise web.HTTPNotFound()
    return web.FileResponse(static / filename, headers={
        "Content-Type": content_type, "Cache-Control": ASSET_CACHE, **headers})
