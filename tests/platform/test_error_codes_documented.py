"""docs/errors.md lists every error code the platform core can answer with."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from insureops.platform.http.errors import _HTTP_CODES

ROOT = Path(__file__).resolve().parents[2]


# The platform's core: its root and the shared packages every area relies on (areas document
# their own codes in their docs).
CORE = ("http", "data", "auth", "records", "outbound", "tenancy", "identity", "email", "compute")


def core_codes() -> set[str]:
    """Codes of every `ApiError(status, "code", ...)` in the platform's root modules and shared
    packages, and of the HTTP layer."""
    codes = {code for code, _ in _HTTP_CODES.values()}
    paths = [*(ROOT / "platform").glob("*.py"),
             *(path for part in CORE for path in (ROOT / "platform" / part).rglob("*.py"))]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ApiError"
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
                codes.add(node.args[1].value)
    return codes


def test_every_core_error_code_is_documented_when_docs_are_read():
    documented = set(re.findall(r"`([a-z_]+)`", (ROOT / "docs" / "errors.md").read_text()))
    codes = core_codes()
    assert {"invalid_json", "validation_error", "internal_error", "rate_limited"} <= codes
    missing = sorted(codes - documented)
    assert not missing, f"add these codes to docs/errors.md: {missing}"
