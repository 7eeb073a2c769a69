"""A local test website for the scanner: real pages, redirects, and pages that must be refused."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

from aiohttp import web

PAGES = Path(__file__).parent / "site"
PAGE_NAMES = ("plumber", "restaurant", "software")
OVERSIZED_BYTES = 3 * 1024 * 1024  # above the default 2 MiB scan_max_bytes


async def page(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in PAGE_NAMES:
        raise web.HTTPNotFound()
    return web.Response(text=(PAGES / f"{name}.html").read_text("utf-8"),
                        content_type="text/html", charset="utf-8")


async def redirect(request: web.Request) -> web.Response:
    """`/redirect?to=URL`: a 302 to any URL (relative or absolute)."""
    raise web.HTTPFound(request.query["to"])


async def chain(request: web.Request) -> web.Response:
    """`/chain/N`: N redirects before the plumber's page."""
    left = int(request.match_info["left"])
    raise web.HTTPMovedPermanently("/pages/plumber" if left == 0 else f"/chain/{left - 1}")


async def oversized(request: web.Request) -> web.StreamResponse:
    """An HTML page streamed without Content-Length, larger than the scan limit."""
    response = web.StreamResponse(headers={"Content-Type": "text/html"})
    await response.prepare(request)
    chunk = b"<p>" + b"plumbing " * 7000 + b"</p>\n"
    sent = 0
    try:
        while sent < OVERSIZED_BYTES:
            await response.write(chunk)
            sent += len(chunk)
    except ConnectionResetError:  # the scanner stopped reading, as it should
        return response
    await response.write_eof()
    return response


async def declared_oversized(request: web.Request) -> web.Response:
    return web.Response(body=b"<p>x</p>" * (OVERSIZED_BYTES // 8), content_type="text/html")


async def compressed_oversized(request: web.Request) -> web.Response:
    """A small gzip body that inflates past the scan limit (the limit counts inflated bytes)."""
    body = gzip.compress(b"<p>" + b"a" * OVERSIZED_BYTES + b"</p>")
    return web.Response(body=body, headers={"Content-Type": "text/html",
                                            "Content-Encoding": "gzip"})


async def slow(request: web.Request) -> web.Response:
    await asyncio.sleep(float(request.query.get("seconds", "5")))
    return web.Response(text="<title>late</title>", content_type="text/html")


async def json_page(request: web.Request) -> web.Response:
    return web.json_response({"business": "plumbing"})


async def missing(request: web.Request) -> web.Response:
    raise web.HTTPNotFound()


def build_site() -> web.Application:
    app = web.Application()
    app.router.add_get("/pages/{name}", page)
    app.router.add_get("/redirect", redirect)
    app.router.add_get("/chain/{left}", chain)
    app.router.add_get("/oversized", oversized)
    app.router.add_get("/declared-oversized", declared_oversized)
    app.router.add_get("/compressed-oversized", compressed_oversized)
    app.router.add_get("/slow", slow)
    app.router.add_get("/data.json", json_page)
    app.router.add_get("/missing", missing)
    return app
