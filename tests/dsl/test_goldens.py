"""Golden diagnostics: every tests/dsl/cases/NAME.rules renders to NAME.diagnostics.

Refresh after an intended change with `UPDATE_GOLDENS=1 pytest tests/dsl/test_goldens.py`,
then read the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from insureops.dsl.api import check_source
from insureops.dsl.diagnostics import CODES, render_diagnostics

CASES = Path(__file__).parent / "cases"
RULES = sorted(CASES.glob("*.rules"))


def rendered(path: Path) -> str:
    source = path.read_text()
    report = check_source(source, filename=path.name)
    return render_diagnostics(report.diagnostics, source, path.name) + "\n"


@pytest.mark.parametrize("path", RULES, ids=[p.stem for p in RULES])
def test_case_renders_its_golden_diagnostics(path: Path):
    golden = path.with_suffix(".diagnostics")
    text = rendered(path)
    if os.environ.get("UPDATE_GOLDENS") == "1":
        golden.write_text(text)
    assert golden.exists(), f"missing {golden.name}: run with UPDATE_GOLDENS=1"
    assert text == golden.read_text()


def test_every_diagnostic_code_has_a_golden_case():
    shown = set()
    for golden in CASES.glob("*.diagnostics"):
        shown |= set(re.findall(r"(?:error|warning)\[([EW]\d{3})\]", golden.read_text()))
    assert set(CODES) - shown == set()


def test_spec_example_has_no_diagnostics():
    assert rendered(CASES / "spec_example.rules") == "\n"
