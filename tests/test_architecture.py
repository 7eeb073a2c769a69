"""Layers import only downwards: platform -> carrier_matching -> dsl -> engine -> schema; and
the platform's folders show its parts: areas that never import each other, shared packages that
name their part, a root holding the composition root and a few modules.

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
# are the shell's (platform/tenancy/engine.py, platform/tenancy/data_model.py).
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


# The platform's layout (STYLE.md "PLATFORM"; docs/architecture.md "The service").
PLATFORM = ROOT / "platform"
AREAS = ["accounts", "carrier_finder", "prospects", "mcp", "team", "settings", "rules_studio",
         "connectors", "studio_web", "invitation_web"]
# Shared packages, each naming its part; areas reach one another's data only through them.
SHARED_PACKAGES = {
    "http": "routing, bodies, errors, OpenAPI, middlewares, rate limits, serving",
    "data": "the platform database, the direct pools, the one retry policy",
    "auth": "route requirements, principals, authenticators, secret keys",
    "records": "tables several areas read, and the rule catalog port",
    "outbound": "the address policy and clients of outbound connections",
    "tenancy": "tenant databases: connections, pools, stores, clients and policies",
    "identity": "users, workspaces and memberships",
    "email": "e-mail backends, templates and the log",
    "compute": "where heavy work runs",
    "jobs": "background jobs: the registry of job kinds, the queue and the embedded runner",
    "batch": "batch runs of a ruleset over cases (the CLI's and the studio's simulate)",
    "migrations": "the platform database's alembic environment",
    "cli": "every `insureops` command",
    "mcp_server": "the local MCP server (a program of its own)",
    "mcp_tools": "the MCP tools: one registry and server for the local and the remote way",
    "webhooks": "the event catalogue, endpoints, the outbox (publish) and the delivery job",
}
MAX_ROOT_MODULES = 12
# The only platform modules outside the areas that may name areas, and why.
MAY_IMPORT_AREAS = {
    "app.py": "the composition root mounts every area",
    "migrations/env_models.py": "registers every table for the migration environment",
    "cli/": "the commands compose areas as the service does (market load, rules simulate)",
    "mcp_tools/registry.py": "the tools are the tenant API's operations of every area: their "
                             "argument models are those operations' payload models",
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


def platform_files() -> list[Path]:
    return [p for p in PLATFORM.rglob("*.py") if "__pycache__" not in p.parts]


def test_the_platform_root_holds_the_composition_root_and_a_few_modules():
    modules = sorted(path.name for path in PLATFORM.glob("*.py"))
    assert "app.py" in modules
    assert len(modules) <= MAX_ROOT_MODULES, f"move into a package that names its part: {modules}"
    assert not (PLATFORM / "__init__.py").exists()  # a namespace portion (STYLE.md, Packaging)


def test_every_platform_package_is_an_area_or_a_named_shared_part():
    packages = {path.name for path in PLATFORM.iterdir()
                if path.is_dir() and (path / "__init__.py").exists()}
    assert packages == set(AREAS) | set(SHARED_PACKAGES), (
        f"unknown: {sorted(packages - set(AREAS) - set(SHARED_PACKAGES))}; "
        f"gone: {sorted(set(AREAS) | set(SHARED_PACKAGES) - packages)}")


def test_no_area_imports_another_area_when_the_source_is_walked():
    violations = []
    for area in AREAS:
        assert (PLATFORM / area / "routes.py").exists(), f"area {area} has no routes.py"
        for path in (PLATFORM / area).rglob("*.py"):
            for line, module, other in areas_imported(path.read_text(), str(path)):
                if other != area:
                    violations.append(f"{path.relative_to(PLATFORM)}:{line} imports {module}")
    assert not violations, "\n".join(violations)


def _may_import_areas(relative: str) -> bool:
    return any(relative == allowed or (allowed.endswith("/") and relative.startswith(allowed))
               for allowed in MAY_IMPORT_AREAS)


def test_no_shared_module_imports_an_area_when_it_is_not_a_composition_root():
    violations = []
    for path in platform_files():
        relative = path.relative_to(PLATFORM).as_posix()
        if relative.split("/")[0] in AREAS or _may_import_areas(relative):
            continue
        for line, module, _ in areas_imported(path.read_text(), str(path)):
            violations.append(f"{relative}:{line} imports {module}")
    assert not violations, "\n".join(violations)


def test_nothing_but_the_cli_imports_the_cli_when_the_source_is_walked():
    # The commands compose the service's parts; no part depends on a command (rules_studio
    # and carrier_finder imported cli modules until issue 30).
    violations = [f"{path.relative_to(PLATFORM)}:{line} imports {module}"
                  for path in platform_files() if path.relative_to(PLATFORM).parts[0] != "cli"
                  for line, module in imported(path.read_text(), str(path))
                  if module.startswith("insureops.platform.cli")]
    assert not violations, "\n".join(violations)


def test_reexport_of_an_area_is_found_when_a_platform_module_does_it():
    # The shape issue 11 found in platform/identity.py: a platform module passing an area's
    # models on to the other areas.
    source = ("from insureops.platform.accounts.models import User\n"
              "from insureops.platform import team\n"
              "import insureops.platform.mcp.service\n")
    assert [area for _, _, area in areas_imported(source)] == ["accounts", "team", "mcp"]


# An area with sub-areas gives each a folder of the canonical layout; its routes.py serves their
# tables as one (RouteTable.include), in the order listed.
SUB_AREAS = {"carrier_finder": ("market", "scan", "own"), "settings": ("webhooks",)}
SUB_AREA_MODULES = ("routes.py", "service.py", "repository.py", "models.py", "payloads.py")


def test_every_sub_area_has_a_folder_with_the_canonical_modules():
    missing = [f"{area}/{sub}/{module}" for area, subs in SUB_AREAS.items() for sub in subs
               for module in SUB_AREA_MODULES if module != "models.py"
               and not (PLATFORM / area / sub / module).exists()]
    assert not missing, missing
    for area, subs in SUB_AREAS.items():
        loose = sorted(path.name for path in (PLATFORM / area).glob("*.py")
                       if any(path.name.startswith(f"{sub}_") for sub in (*subs, "workspace")))
        assert not loose, f"{area}: modules told apart by a prefix belong in a sub-area: {loose}"


def test_an_area_serves_its_sub_areas_routes_when_its_table_is_built():
    from insureops.platform.carrier_finder import routes as area
    from insureops.platform.carrier_finder.market import routes as market
    from insureops.platform.carrier_finder.own import routes as own
    from insureops.platform.carrier_finder.scan import routes as scan

    assert area.routes.routes == [*market.routes.routes, *scan.routes.routes, *own.routes.routes]
