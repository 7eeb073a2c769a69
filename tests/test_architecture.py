"""Layers import only downwards: platform -> carrier_matching -> dsl -> engine -> schema.

An AST walk over the source, so it holds in any install mode. Also: the core never imports
the I/O libraries, and nothing imports a code folder by its bare name.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["schema", "engine", "dsl", "carrier_matching", "platform"]  # lowest first
IO_LIBRARIES = {"aiohttp", "sqlalchemy", "psycopg", "aiosqlite", "alembic", "aiosmtplib", "mcp",
                "pydantic_settings", "click", "rich", "os.environ", "socket", "requests", "httpx"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def layer_files(layer: str) -> list[Path]:
    return [p for p in (ROOT / layer).rglob("*.py") if "__pycache__" not in p.parts]


def test_layers_import_only_downwards():
    violations = []
    for rank, layer in enumerate(LAYERS):
        for path in layer_files(layer):
            for line, module in imported_modules(path):
                parts = module.split(".")
                if parts[0] == "insureops" and len(parts) > 1 and parts[1] in LAYERS:
                    if LAYERS.index(parts[1]) > rank:
                        violations.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not violations, "\n".join(violations)


# schema/sql/ (insureops.schema.sql and its children) renders the tenant database's DDL, which is
# part of the data contract, with SQLAlchemy Core. Creating engines, connecting and running alembic
# are the shell's (platform/tenant_engine.py, platform/tenant_schema.py).
SQL_ALLOWED_DIR = ROOT / "schema" / "sql"
SQL_ALLOWED_LIBRARIES = {"sqlalchemy"}
# Names that open or hold a database connection source: the core only receives Connections.
CONNECTING_NAMES = {"create_engine", "create_async_engine", "engine_from_config",
                    "async_engine_from_config", "Engine", "AsyncEngine", "connect",
                    "sqlalchemy.ext.asyncio"}


def test_core_never_imports_io_libraries():
    violations = []
    for layer in LAYERS[:-1]:
        for path in layer_files(layer):
            allowed = SQL_ALLOWED_LIBRARIES if SQL_ALLOWED_DIR in path.parents else set()
            for line, module in imported_modules(path):
                if module.split(".")[0] in allowed:
                    continue
                if module.split(".")[0] in IO_LIBRARIES or module in IO_LIBRARIES:
                    violations.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not violations, "\n".join(violations)


def test_nothing_imports_a_code_folder_by_its_bare_name():
    violations = []
    skipped = {".venv", "build", "node_modules"}  # node_modules: web/'s npm packages
    for path in [p for p in ROOT.rglob("*.py") if not skipped.intersection(p.parts)]:
        for line, module in imported_modules(path):
            if module.split(".")[0] in {"engine", "dsl", "carrier_matching", "schema"}:
                violations.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not violations, "\n".join(violations)


def connecting_names(source: str) -> list[tuple[int, str]]:
    """(line, name) of each engine-making or connecting name, attribute or import in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""] + [alias.name for alias in node.names]
            found += [(node.lineno, module) for module in modules if module in CONNECTING_NAMES]
        elif name in CONNECTING_NAMES:
            found.append((node.lineno, name))
    return found


def test_core_never_creates_engines_or_connects_when_the_source_is_walked():
    violations = []
    for layer in LAYERS[:-1]:
        for path in layer_files(layer):
            violations += [f"{path.relative_to(ROOT)}:{line} uses {name}"
                           for line, name in connecting_names(path.read_text())]
    assert not violations, "\n".join(violations)


def test_engine_creation_is_found_when_core_code_makes_an_engine():
    # The shape issue 11 found in schema/sql/engine.py and apply.py.
    source = ("import sqlalchemy as sa\n"
              "from sqlalchemy.ext.asyncio import create_async_engine\n"
              "def open_it(url) -> sa.Engine:\n"
              "    engine = sa.create_engine(url)\n"
              "    with engine.connect() as connection:\n"
              "        return connection\n")
    assert [name for _, name in connecting_names(source)] == [
        "sqlalchemy.ext.asyncio", "create_async_engine", "Engine", "create_engine", "connect"]
