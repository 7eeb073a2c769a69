"""The import name, the namespace folders and the package list stay as STYLE.md prescribes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE_FOLDERS = ["engine", "dsl", "carrier_matching", "schema", "platform"]


def test_platform_folder_has_no_init_file_of_its_own():
    # platform/ must stay a namespace portion so the stdlib's platform module wins; the core
    # folders may be regular packages naming their public surface (STYLE.md, Packaging)
    assert not (ROOT / "platform" / "__init__.py").exists()


def test_stdlib_platform_is_not_shadowed_when_run_from_the_repository_root():
    completed = subprocess.run(
        [sys.executable, "-c", "import platform; print(platform.system())"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip()


def test_every_code_folder_on_disk_is_listed_in_packages():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = set()
    for folder in CODE_FOLDERS:
        for path in [ROOT / folder, *(ROOT / folder).rglob("*")]:
            if path.is_dir() and "__pycache__" not in path.parts and any(path.glob("*.py")):
                relative = path.relative_to(ROOT).parts
                on_disk.add(".".join(("insureops", *relative)))
    assert on_disk <= listed, f"missing from pyproject packages: {sorted(on_disk - listed)}"
    assert listed <= on_disk | {f"insureops.{f}" for f in CODE_FOLDERS}, sorted(listed - on_disk)


def test_package_is_imported_under_its_one_name():
    import insureops.engine.ir as ir

    assert ir.__name__ == "insureops.engine.ir"
