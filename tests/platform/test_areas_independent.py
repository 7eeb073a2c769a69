"""Areas never import each other: shared code moves up to platform/ or down into the core."""

from __future__ import annotations

import ast
from pathlib import Path

PLATFORM = Path(__file__).resolve().parents[2] / "platform"
AREAS = ["accounts", "carrier_finder", "prospects", "mcp", "team", "settings", "rules_studio",
         "connectors"]


def imported(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
    return found


def test_no_area_imports_another_area_when_the_source_is_walked():
    violations = []
    for area in AREAS:
        assert (PLATFORM / area / "routes.py").exists(), f"area {area} has no routes.py"
        for path in (PLATFORM / area).rglob("*.py"):
            for line, module in imported(path):
                parts = module.split(".")
                other = parts[2] if parts[:2] == ["insureops", "platform"] and len(parts) > 2 \
                    else None
                if other in AREAS and other != area:
                    violations.append(f"{path.relative_to(PLATFORM)}:{line} imports {module}")
    assert not violations, "\n".join(violations)
