"""`insureops.dsl` is the one obvious place for the public surface (issue 12): compile_ruleset,
check_source and the result and error types, importable from the package, cheaply."""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import pytest

from insureops import dsl
from insureops.dsl import (
    CheckReport,
    CompiledRuleset,
    EvaluationError,
    Result,
    RulesetInvalidError,
    check_source,
    compile_ruleset,
)

SOURCE = """ruleset surface.probe
input business: Business
rule small when business.employee_count < 10 then accept "small" end
"""


def test_package_compiles_checks_and_evaluates_when_used_from_its_names():
    report = check_source(SOURCE)
    assert isinstance(report, CheckReport) and report.ok
    compiled = compile_ruleset(SOURCE)
    assert isinstance(compiled, CompiledRuleset)
    result = compiled.evaluate({"business": {"employee_count": 3}}, as_of=date(2025, 1, 1))
    assert isinstance(result, Result) and result.decision == "accept"


def test_package_exposes_its_error_types_when_compiling_or_evaluating_fails():
    with pytest.raises(RulesetInvalidError):
        compile_ruleset("ruleset broken\nrule r when then end\n")
    with pytest.raises(EvaluationError) as raised:
        compile_ruleset(SOURCE).evaluate({}, as_of=date(2025, 1, 1))
    assert raised.value.code == "missing_input"


def test_package_lists_every_public_name_when_asked():
    assert sorted(dsl.__all__) == sorted(dsl._EXPORTS)
    for name in dsl.__all__:
        assert getattr(dsl, name) is not None, name
    assert set(dsl.__all__) <= set(dir(dsl))
    with pytest.raises(AttributeError):
        dsl.no_such_name  # noqa: B018


def test_package_import_loads_neither_parser_nor_engine_when_no_name_is_used():
    code = ("import sys, insureops.dsl; "
            "print(sorted(m for m in sys.modules if m.startswith(('lark', 'insureops.engine'))))")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True)
    assert completed.stdout.strip() == "[]"
