"""The README's two commands are the ones CI runs, and its links lead to files that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTALL_AND_SERVE = "pip install -e . && insureops serve"
INSTALL_AND_TEST = "pip install -e '.[test]' && pytest"


def test_readme_gives_the_two_newcomer_commands_when_read():
    readme = (ROOT / "README.md").read_text()
    assert INSTALL_AND_SERVE in readme and INSTALL_AND_TEST in readme
    assert readme.index(INSTALL_AND_SERVE) < readme.index("## Configuration")


def test_ci_runs_the_readme_test_command_when_its_script_is_read():
    script = (ROOT / ".ci" / "run").read_text()
    assert f'"{INSTALL_AND_TEST}"' in script
    assert "INSUREOPS_TEST_POSTGRES_URL" in script and "pg_ctlcluster" in script


def test_readme_links_resolve_when_they_point_into_the_repository():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert links
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, missing
