"""The compiled form agrees with the reference interpreter on the same IR, and random
expressions, well-typed or not, only ever give a value or an EvaluationError. (Whole
rulesets run both ways are compared in test_codegen.py.) Random typed and untyped input
records give the same outcome plain and explained, compiled and interpreted (one validation
semantics)."""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from engine_ir_builders import build, name, rule, ruleset, set_output, tag
from engine_paths import compile_paths, every_outcome
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from insureops.dsl.api import parse_ruleset
from insureops.engine import ir
from insureops.engine.evaluation import frozen
from insureops.engine.inputs.jsonio import dumps
from insureops.engine.ir.builtins import FUNCTIONS as BUILTINS
from insureops.engine.ir.errors import EngineError, EvaluationError
from insureops.engine.ir.operators import OPERATORS
from insureops.engine.ir.values import Duration
from insureops.schema.registry import default_registry

AS_OF = date(2025, 6, 15)
BUSINESS = {
    "n": 12, "m": Decimal("-2.50"), "s": "CA", "t": "238210", "b": True, "none": None,
    "d": date(2024, 2, 29), "when": datetime(2025, 1, 31, 10, tzinfo=UTC),
    "items": [1, 2, 3], "names": ["a", "b"], "claims": [{"amount": 5000}, {"amount": 20000},
                                                          {"amount": None}],
}
FIELDS = sorted(BUSINESS) + ["missing"]
BINARY_OPS = list(OPERATORS)  # the registry: a new operator is tested on every path
# Every built-in of the registry, at every arity it takes (up to 3 for "or more"): a function
# added to engine/ir/builtins.py is drawn here without editing this file (issue 29).
ARITIES = {f.name: tuple(range(f.minimum, (f.maximum if f.maximum is not None
                                            else f.minimum + 2) + 1))
           for f in BUILTINS.values()}

literals = st.one_of(
    st.integers(-1000, 1000).map(Decimal),
    st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False),
    st.decimals(min_value=-10**40, max_value=10**40, places=9, allow_nan=False),
    st.sampled_from(["CA", "TX", "", "23", "2382", "a+", "^2", "[", "2025-01-01"]),
    st.booleans(), st.none(),
    st.dates(date(2000, 1, 1), date(2030, 12, 31)),
    st.builds(Duration, st.integers(-24, 24), st.integers(-400, 400)),
).map(ir.Literal)
leaves = st.one_of(literals, st.sampled_from(FIELDS).map(lambda f: name(f"business.{f}")),
                   st.just(ir.Name("x")))


def _extend(children):
    return st.one_of(
        st.builds(ir.Binary, st.sampled_from(BINARY_OPS), children, children),
        st.builds(ir.Unary, st.sampled_from(["-", "not"]), children),
        st.builds(ir.Between, children, children, children),
        st.builds(ir.IsNull, children, st.booleans()),
        st.builds(ir.Conditional, children, children, children),
        st.builds(ir.Member, children, st.sampled_from(["amount", "s", "n"])),
        st.builds(ir.Index, children, children),
        st.builds(lambda items: ir.ListExpr(tuple(items)), st.lists(children, max_size=3)),
        st.builds(lambda items: ir.SetExpr(tuple(items)), st.lists(children, max_size=3)),
        st.builds(lambda parts: ir.Interpolated(tuple(parts)),
                  st.lists(st.one_of(st.just("text "), children), max_size=3)),
        st.sampled_from(sorted(ARITIES)).flatmap(
            lambda f: st.sampled_from(ARITIES[f]).flatmap(
                lambda n: st.lists(children, min_size=n, max_size=n)).map(
                lambda args: ir.Call(f, tuple(args)))),
        st.builds(_comprehension, st.sampled_from(["any", "all", "count", "sum", "min", "max"]),
                  children, st.one_of(st.none(), children), st.one_of(st.none(), children)),
    )


def _comprehension(kind, source, where, projection):
    if kind not in ("sum", "min", "max"):
        projection = None
    return ir.Comprehension(kind, "x", source, projection, where)


untyped = st.recursive(leaves, _extend, max_leaves=12)

# Well-typed expressions: numbers and booleans built only from operands of the right type.
numbers = st.recursive(
    st.one_of(st.integers(-50, 50).map(Decimal).map(ir.Literal),
              st.sampled_from(["n", "m", "none", "missing"]).map(
                  lambda f: name(f"business.{f}")),
              st.just(name("x.amount"))),
    lambda c: st.one_of(
        st.builds(ir.Binary, st.sampled_from(["+", "-", "*", "/", "%"]), c, c),
        st.builds(ir.Unary, st.just("-"), c),
        st.builds(lambda v: ir.Call("round", (v, ir.Literal(Decimal(1)))), c),
        st.builds(lambda v, w: ir.Binary("??", v, w), c, c),
        st.builds(lambda kind, p: ir.Comprehension(kind, "c", name("business.claims"), p),
                  st.sampled_from(["sum", "min", "max"]), st.just(name("c.amount"))),
    ), max_leaves=8)
booleans = st.recursive(
    st.one_of(
        st.builds(ir.Binary, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), numbers,
                  numbers),
        st.builds(ir.Between, numbers, numbers, numbers),
        st.builds(ir.IsNull, numbers, st.booleans()),
        st.builds(lambda op, s: ir.Binary(op, name("business.s"), ir.Literal(s)),
                  st.sampled_from(["==", "starts_with", "matches", "contains"]),
                  st.sampled_from(["C", "CA", "^C", "A$"])),
        st.builds(lambda v: ir.Binary("in", name("business.s"), ir.SetExpr(
            tuple(ir.Literal(s) for s in v))), st.lists(st.sampled_from(["CA", "TX"]))),
        st.just(name("business.b")), st.just(ir.Literal(None))),
    lambda c: st.one_of(
        st.builds(ir.Binary, st.sampled_from(["and", "or"]), c, c),
        st.builds(ir.Unary, st.just("not"), c),
        st.builds(lambda kind, where: ir.Comprehension(kind, "x", name("business.claims"),
                                                      None, where),
                  st.sampled_from(["any", "all"]), c),
    ), max_leaves=8)
expressions = st.one_of(untyped, numbers, booleans)


def outcome(pair, explain=False):
    """What the evaluations gave, comparable across engines: JSON text or the error code."""
    found = []
    for compiled in pair:
        try:
            result = compiled.evaluate({"business": BUSINESS, "x": {"amount": 5000}},
                                       as_of=AS_OF, explain=explain)
        except EvaluationError as error:
            found.append(("error", error.code))
        else:
            found.append(("value", dumps(dict(result.outputs)), result.fired, result.tags))
    return found


def both(expression):
    """The compiled and interpreted rulesets computing `expression` two ways: as an output
    value and as a rule condition (each in its own ruleset)."""
    inputs = {"business": "Any", "x": "Any"}
    as_value = ruleset(rule("value", True, set_output("v", expression)), inputs=inputs)
    as_condition = ruleset(rule("condition", expression, tag("hit")), inputs=inputs)
    return ((build(as_value), build(as_condition)),
            (build(as_value, reference=True), build(as_condition, reference=True)))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
def test_compiler_agrees_with_the_interpreter_when_given_random_expressions(expression):
    try:
        compiled, reference = both(expression)
    except EngineError as error:  # e.g. nested deeper than the compile limit
        assert error.code in ("invalid_ir", "limit_expression_depth")
        return
    expected = outcome(reference)
    assert outcome(compiled) == expected
    assert outcome(compiled, explain=True) == expected
    assert outcome(reference, explain=True) == expected
    assert outcome(thawed(compiled)) == expected  # as a cache restores it


def thawed(pair):
    """Each compiled ruleset frozen and thawed (engine.evaluation.frozen)."""
    return tuple(frozen.thaw(frozen.freeze(compiled), lambda compiled=compiled: compiled)
                 for compiled in pair)


EXAMPLES = [
    ir.Binary("and", ir.Literal(None), ir.Binary("<", ir.Literal("a"), ir.Literal(Decimal(1)))),
    ir.Binary("and", ir.Literal(False), ir.Binary("<", ir.Literal("a"), ir.Literal(Decimal(1)))),
    ir.Binary("or", ir.Literal(True), ir.Literal(Decimal(1))),
    ir.Binary("in", name("business.s"), ir.SetExpr((ir.Literal("CA"), ir.Literal(None)))),
    ir.Binary("in", name("business.items"), ir.SetExpr((ir.ListExpr(()),))),
    ir.Binary("<", name("business.when"), ir.Call("now", ())),
    ir.Binary("+", name("business.d"), ir.Literal(Duration(12, 0))),
    ir.Comprehension("sum", "c", name("business.claims"), name("c.amount")),
    ir.Call("min", (name("business.items"), ir.Literal(Decimal(0)))),
    # issue 12's probes: Kleene quantifiers, exact arithmetic, the exponent bound
    ir.Comprehension("all", "c", ir.ListExpr((ir.Literal(Decimal(2)), ir.Literal(None))), None,
                     ir.Binary(">", ir.Name("c"), ir.Literal(Decimal(1)))),
    ir.Comprehension("any", "c", ir.ListExpr((ir.Literal(None),)), None,
                     ir.Binary(">", ir.Name("c"), ir.Literal(Decimal(1)))),
    ir.Comprehension("any", "c", name("business.claims"), None,
                     ir.Binary(">", name("c.amount"), ir.Literal(Decimal(30000)))),
    ir.Binary("-", ir.Binary("+", ir.Literal(Decimal(12345678901234567890123456789)),
                             ir.Literal(Decimal(2))),
              ir.Literal(Decimal(12345678901234567890123456789))),
    ir.Binary("*", ir.Binary("*", ir.Literal(Decimal("1E900")), ir.Literal(Decimal("1E900"))),
              ir.Literal(Decimal("1E900"))),
    ir.Binary("*", name("business.m"), ir.Literal(Decimal("1" * 99))),
]


@pytest.mark.parametrize("expression", EXAMPLES)
def test_compiler_agrees_with_the_interpreter_when_given_tricky_examples(expression):
    compiled, reference = both(expression)
    expected = outcome(reference)
    assert outcome(compiled) == outcome(thawed(compiled)) == expected
    assert outcome(compiled, explain=True) == outcome(reference, explain=True) == expected
    assert outcome(thawed(compiled), explain=True) == expected



# --- typed and untyped inputs, every path (issue 12) --------------------------------------------

APPETITE = Path(__file__).resolve().parents[2] / "examples" / "appetite_acme_contractors.rules"
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**4, 10**7),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["CA", "NY", "238210", "238160", "2025-01-01", "2025-13-01", "", "x"]))
CLAIM = st.fixed_dictionaries({}, optional={"amount": SCALARS, "date": SCALARS,
                                            "type": SCALARS, "noise": SCALARS})
RECORDS = st.fixed_dictionaries({}, optional={
    **{field: SCALARS for field in ("naics", "state", "annual_revenue", "payroll",
                                    "employee_count", "years_in_business", "founded_on",
                                    "requested_limit", "name", "postal_code")},
    "prior_claims": st.one_of(SCALARS, st.lists(st.one_of(CLAIM, SCALARS), max_size=4)),
    "lines_of_business": st.one_of(SCALARS, st.lists(SCALARS, max_size=3)),
})
WARM = {"naics": "238210", "state": "CA", "annual_revenue": 900000, "employee_count": 6,
        "years_in_business": 8, "prior_claims": []}


@functools.cache
def _appetite_paths(typed: bool) -> dict:
    """The appetite example on every path, typed with its Business schema or with the schema
    left out (as under `Any`)."""
    rs = parse_ruleset(APPETITE.read_text(encoding="utf-8"))
    schemas = {"business": default_registry().get("Business")} if typed else None
    return compile_paths(rs, schemas)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS, st.booleans())
def test_every_path_agrees_when_given_random_typed_and_untyped_inputs(record, typed):
    found = every_outcome(_appetite_paths(typed), {"business": record})
    assert len(set(found.values())) == 1, found


@pytest.mark.parametrize("record", [
    {**WARM, "employee_count": Decimal("2.5")},                 # issue 12: integer schema
    {**WARM, "founded_on": "not a date"},                        # unread by the appetite rules
    {**WARM, "payroll": float("nan")},                           # unread
    {**WARM, "annual_revenue": Decimal("NaN")},                  # read
    {**WARM, "prior_claims": [{"amount": 20000, "date": "2025-13-01"}]},
    {**WARM, "prior_claims": [{"amount": Decimal("Infinity")}]},
])
@pytest.mark.parametrize("typed", [True, False])
def test_every_path_agrees_when_given_the_issue_probes(record, typed):
    found = every_outcome(_appetite_paths(typed), {"business": record})
    assert len(set(found.values())) == 1, found
