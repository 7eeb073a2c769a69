"""The built-in registry (engine/ir/builtins.py `FUNCTIONS`): the checker, every evaluation path
and docs/rules-language.md's table derive from it, so a built-in added there alone is checked,
evaluated alike on every path and explained."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
from engine_paths import every_path

from insureops.dsl import check_source
from insureops.dsl import functions as checker_functions
from insureops.dsl.api import parse_ruleset
from insureops.engine.ir import builtins
from insureops.engine.ir.builtins import FUNCTIONS, Function, docs_table
from insureops.engine.ir.errors import EvaluationError

ROOT = Path(__file__).resolve().parents[2]


def test_the_checker_reads_the_engine_registry():
    assert checker_functions.FUNCTIONS is FUNCTIONS


def test_docs_table_is_derived_from_the_registry():
    table = textwrap.indent(docs_table(), "  ")  # inside a list item
    assert table in (ROOT / "docs" / "rules-language.md").read_text()


def test_every_entry_is_well_formed():
    for name, function in FUNCTIONS.items():
        assert function.name == name
        assert function.maximum is None or function.maximum >= function.minimum
        assert function.accepts is None or len(function.accepts) == (
            function.maximum or function.minimum)
        assert function.result in {"number", "string", "date", "datetime", "items"}
        assert function.summary


def _twice(args, ev, span):
    (value,) = args
    if type(value) is not Decimal:
        raise EvaluationError("twice() expects a number", code="type_mismatch", span=span)
    return value + value


@pytest.fixture
def twice(monkeypatch):
    """A built-in that exists only in the registry: nothing else is told about it."""
    function = Function("twice", _twice, 1, 1, (("number",),), "number", "the number doubled")
    monkeypatch.setitem(FUNCTIONS, "twice", function)
    return function


SOURCE = """ruleset t.twice "Twice"
input business: Any
default decision refer

rule big
when twice(business.employee_count) > 10 and len(business.prior_claims) < 3
then
    accept "big enough"
end
"""


def test_a_built_in_added_to_the_registry_is_checked_by_its_signature(twice):
    assert check_source(SOURCE).ok
    wrong = check_source(SOURCE.replace("twice(business.employee_count)", 'twice("x")'))
    assert [d.code for d in wrong.errors] == ["E202"]
    assert "argument 1 of `twice` must be a number" in wrong.errors[0].message
    many = check_source(SOURCE.replace("twice(business.employee_count)", "twice(1, 2)"))
    assert [d.code for d in many.errors] == ["E102"]


@pytest.mark.parametrize("business", [
    {"employee_count": 6, "prior_claims": []},
    {"employee_count": 5, "prior_claims": []},
    {"employee_count": None, "prior_claims": []},
    {"employee_count": "6", "prior_claims": []},
    {"employee_count": 6, "prior_claims": [1, 2, 3]},
])
def test_a_built_in_added_to_the_registry_runs_alike_on_every_path(twice, business):
    found = every_path(parse_ruleset(SOURCE), {"business": business})
    assert len(set(found.values())) == 1, found


def test_a_built_in_is_explained_by_its_call_text(twice):
    from insureops.dsl import compile_ruleset

    result = compile_ruleset(SOURCE).evaluate(
        {"business": {"employee_count": 2, "prior_claims": []}}, explain=True)
    (entry,) = result.trace
    assert entry["matched"] is False
    assert any("twice(business.employee_count)" in miss for miss in entry["failed"])


def test_null_tolerance_and_clock_come_from_the_registry():
    assert {name for name, f in FUNCTIONS.items() if f.null_tolerant} == {"coalesce"}
    assert builtins.CLOCK == {"today", "now"}
