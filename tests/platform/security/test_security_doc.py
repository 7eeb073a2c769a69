"""docs/security.md names the test proving each point: every `file::test` it names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def test_every_test_named_by_the_security_doc_exists():
    text = (ROOT / "docs" / "security.md").read_text()
    references = REFERENCE.findall(text)
    assert len(references) > 60
    missing = [
        f"{file}::{name}"
        for file, name in references
        if not (ROOT / file).is_file() or name not in defined_tests(ROOT / file)
    ]
    assert missing == []
