"""Areas never import each other: shared code moves up to platform/ or down into the core.

Platform-level modules may not import an area either (bar the composition root and the list of
tables for alembic): otherwise a platform module re-exporting an area's models would let every
other area reach them while the area-to-area check still passed.
"""

from __future__ import annotations

import ast
from pathlib import Path

PLATFORM = Path(__file__).resolve().parents[2] / "platform"
AREAS = ["accounts", "carrier_finder", "prospects", "mcp", "team", "settings", "rules_studio",
         "connectors", "studio_web"]
# The only platform-level modules that may name areas, and why.
MAY_IMPORT_AREAS = {
    "app.py": "the composition root mounts every area",
    "migrations/env_models.py": "registers every table for the migration environment",
}


def imported(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """Every module an import names, `from a import b` counted as both `a` and `a.b`."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def areas_imported(source: str, filename: str = "<source>") -> list[tuple[int, str, str]]:
    """(line, module, area) for each import of an area's module."""
    found: dict[tuple[int, str], str] = {}
    for line, module in imported(source, filename):
        parts = module.split(".")
        if parts[:2] == ["insureops", "platform"] and len(parts) > 2 and parts[2] in AREAS:
            found.setdefault((line, parts[2]), module)
    return [(line, module, area) for (line, area), module in found.items()]


def area_of(path: Path) -> str | None:
    first = path.relative_to(PLATFORM).parts[0]
    return first if first in AREAS else None


def test_no_area_imports_another_area_when_the_source_is_walked():
    violations = []
    for area in AREAS:
        assert (PLATFORM / area / "routes.py").exists(), f"area {area} has no routes.py"
        for path in (PLATFORM / area).rglob("*.py"):
            for line, module, other in areas_imported(path.read_text(), str(path)):
                if other != area:
                    violations.append(f"{path.relative_to(PLATFORM)}:{line} imports {module}")
    assert not violations, "\n".join(violations)


def test_no_platform_module_imports_an_area_when_it_is_not_the_composition_root():
    violations = []
    for path in PLATFORM.rglob("*.py"):
        relative = path.relative_to(PLATFORM).as_posix()
        if area_of(path) is not None or relative in MAY_IMPORT_AREAS:
            continue
        for line, module, _ in areas_imported(path.read_text(), str(path)):
            violations.append(f"{relative}:{line} imports {module}")
    assert not violations, "\n".join(violations)


def test_reexport_of_an_area_is_found_when_a_platform_module_does_it():
    # The shape issue 11 found in platform/identity.py: a platform module passing an area's
    # models on to the other areas.
    source = ("from insureops.platform.accounts.models import User\n"
              "from insureops.platform import team\n"
              "import insureops.platform.mcp.service\n")
    assert [area for _, _, area in areas_imported(source)] == ["accounts", "team", "mcp"]

