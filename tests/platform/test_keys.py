"""Every `web.AppKey` and `web.RequestKey` is declared in platform/keys.py and nowhere else."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE_FOLDERS = ["engine", "dsl", "carrier_matching", "schema", "platform", "bench"]
KEYS_MODULE = Path("platform/keys.py")
KEY_CLASSES = {"AppKey", "RequestKey"}


def declared_keys(source: str) -> list[tuple[int, str]]:
    """(line, class) of each `AppKey(...)` / `web.RequestKey(...)` call in the source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", None)
            if name in KEY_CLASSES:
                found.append((node.lineno, name))
    return found


def test_keys_are_declared_only_in_keys_module_when_the_source_is_walked():
    violations = []
    for folder in CODE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            relative = path.relative_to(ROOT)
            if relative == KEYS_MODULE:
                continue
            violations += [f"{relative}:{line} declares a {name}"
                           for line, name in declared_keys(path.read_text())]
    assert not violations, "\n".join(violations)


def test_key_declaration_is_found_when_an_area_declares_its_own():
    # The shape issue 11 found in the accounts and team routes.
    source = ('PASSWORDS: web.AppKey[Passwords] = web.AppKey("team_passwords")\n'
              'FLAG = RequestKey("flag")\n')
    assert declared_keys(source) == [(1, "AppKey"), (2, "RequestKey")]


def test_keys_module_declares_the_keys_when_it_is_read():
    assert len(declared_keys((ROOT / KEYS_MODULE).read_text())) >= 2
