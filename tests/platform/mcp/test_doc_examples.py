"""docs/mcp.md's examples run as written: the schema snippet, the SDK session at the running
service's /mcp/ (its printed output compared with the page), and every JSON block parses."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[3] / "docs" / "mcp.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    text = DOC.read_text()
    return BLOCK.findall(text[text.index("## Examples"):])


def test_every_json_block_parses_when_the_page_is_read():
    blocks = [body for kind, body in BLOCK.findall(DOC.read_text()) if kind == "json"]
    assert blocks
    for body in blocks:
        json.loads(body)


def test_the_schema_example_runs_when_executed():
    (kind, source), *_ = _examples()
    assert kind == "python" and "insureops.schema.jsonschemas" in source
    exec(compile(source, f"{DOC}:schema example", "exec"), {})


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_session_example_prints_what_the_page_shows_when_run(client, tenant):
    _, (kind, source), (_, shown) = _examples()
    assert kind == "python"
    namespace: dict = {}
    exec(compile(source, f"{DOC}:session example", "exec"), namespace)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        await namespace["main"](str(client.make_url("/mcp/")), tenant.key)
    assert printed.getvalue() == shown
