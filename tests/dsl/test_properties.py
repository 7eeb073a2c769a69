"""Properties (hypothesis): checking never raises, and printed IR parses back to the same IR."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from insureops.dsl.api import check_source
from insureops.dsl.parser import keywords, parse_file
from insureops.dsl.printer import format_ruleset
from insureops.dsl.transform import build_ruleset
from insureops.engine import ir
from insureops.engine.ir.values import Duration

CASES = Path(__file__).parent / "cases"

SPEC = (CASES / "spec_example.rules").read_text()
FAST = settings(max_examples=100, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
ALPHABET = st.sampled_from(list('abcdefghijklmnopqrstuvwxyz_0123456789 \n\t"{}[]()|#=<>!?+-*/%.,:\\'
                                'ruleset when then end table test given expect'))


@FAST
@given(st.text(alphabet=st.characters(), max_size=300))
def test_checking_returns_diagnostics_when_given_random_text(text):
    report = check_source(text)
    assert report.ruleset is not None or report.errors


@FAST
@given(st.lists(ALPHABET, max_size=200).map("".join))
def test_checking_returns_diagnostics_when_given_language_like_text(text):
    report = check_source("ruleset a\n" + text)
    assert report.ruleset is not None or report.errors


@FAST
@given(st.data())
def test_checking_never_raises_when_the_spec_example_is_mutated(data):
    text = SPEC
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        kind = data.draw(st.sampled_from(["delete", "insert", "replace"]))
        piece = data.draw(st.text(alphabet=ALPHABET, max_size=6))
        end = min(len(text), at + data.draw(st.integers(1, 12)))
        text = (text[:at] + text[end:] if kind == "delete" else
                text[:at] + piece + text[at:] if kind == "insert" else
                text[:at] + piece + text[end:])
    report = check_source(text, filename="mutant.rules")
    assert all(d.code for d in report.diagnostics)


# --- random IR -> text -> IR ---------------------------------------------------------------------

RESERVED = keywords() | {"any", "all", "count"}
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n not in RESERVED)
DECIMALS = st.builds(lambda n, scale: Decimal(n).scaleb(-scale),
                     st.integers(-10**9, 10**9), st.integers(0, 4))
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
DATES = st.dates(date(1900, 1, 1), date(2200, 12, 31))
DATETIMES = st.builds(
    lambda d, offset: d.replace(tzinfo=timezone(timedelta(minutes=offset))),
    st.datetimes(datetime(1900, 1, 1), datetime(2200, 1, 1)), st.sampled_from([0, 120, -330]))
DURATIONS = st.builds(Duration.of, st.integers(0, 500),
                      st.sampled_from(["day", "week", "month", "year"]))
LITERALS = st.builds(ir.Literal, st.one_of(
    DECIMALS, TEXT, DATES, DATETIMES, DURATIONS, st.booleans(), st.none()))
BINARY_OPS = st.sampled_from(["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and",
                              "or", "??", "in", "not in", "starts_with", "ends_with",
                              "contains", "matches"])


def compound(children):
    return st.one_of(
        st.builds(ir.Member, children, NAMES),
        st.builds(ir.Index, children, children),
        st.builds(ir.Call, NAMES, st.lists(children, max_size=3).map(tuple)),
        st.builds(ir.Unary, st.sampled_from(["-", "not"]), children),
        st.builds(ir.Binary, BINARY_OPS, children, children),
        st.builds(ir.Between, children, children, children),
        st.builds(ir.IsNull, children, st.booleans()),
        st.builds(ir.Conditional, children, children, children),
        st.builds(ir.ListExpr, st.lists(children, max_size=3).map(tuple)),
        st.builds(ir.SetExpr, st.lists(children, min_size=1, max_size=3).map(tuple)),
        st.builds(ir.ObjectExpr, st.lists(st.tuples(TEXT, children), max_size=2).map(tuple)),
        st.builds(ir.Comprehension, st.sampled_from(["any", "all", "count"]), NAMES, children,
                  st.none(), st.none() | children),
        st.builds(ir.Comprehension, st.sampled_from(["sum", "min", "max"]), NAMES, children,
                  children, st.none() | children),
    )


EXPRS = st.recursive(st.one_of(LITERALS, st.builds(ir.Name, NAMES)), compound, max_leaves=12)
BRACELESS = st.recursive(st.one_of(LITERALS, st.builds(ir.Name, NAMES)), lambda c: st.one_of(
    st.builds(ir.Member, c, NAMES), st.builds(ir.Binary, BINARY_OPS, c, c),
    st.builds(ir.Call, NAMES, st.lists(c, max_size=2).map(tuple))), max_leaves=5)
MESSAGE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)
MESSAGES = st.one_of(
    st.builds(ir.Literal, TEXT),
    st.lists(st.tuples(MESSAGE_TEXT, BRACELESS), min_size=1, max_size=3).map(
        lambda pairs: ir.Interpolated(tuple(x for pair in pairs for x in pair))),
)
ACTIONS = st.one_of(
    st.builds(ir.ScoreAction, st.sampled_from(["+=", "-="]), EXPRS),
    st.builds(ir.SetAction, NAMES, EXPRS),
    st.builds(ir.DecisionAction, st.sampled_from(["accept", "refer", "decline"]), MESSAGES),
    st.builds(ir.ReasonAction, MESSAGES),
    st.builds(ir.TagAction, MESSAGES),
    st.just(ir.StopAction()),
)
EFFECTIVE = st.builds(lambda a, b: ir.Effective(min(a, b), max(a, b)), DATES, DATES)
RULES = st.builds(ir.Rule, NAMES, EXPRS, st.lists(ACTIONS, max_size=4).map(tuple),
                  st.none() | TEXT, st.integers(-1000, 1000), st.none() | EFFECTIVE,
                  st.booleans())
CELL_OPERANDS = st.one_of(LITERALS, st.builds(ir.Name, NAMES))
CELLS = st.one_of(
    st.just(ir.AnyCell()), st.just(ir.NullCell()),
    st.builds(ir.CompareCell, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in",
                                               "starts_with", "matches"]), CELL_OPERANDS),
    st.builds(ir.BetweenCell, CELL_OPERANDS, CELL_OPERANDS),
)


@st.composite
def tables(draw):
    inputs = tuple(draw(st.lists(EXPRS, min_size=1, max_size=3)))
    outputs = tuple(draw(st.lists(NAMES, min_size=1, max_size=2)))
    rows = tuple(ir.TableRow(tuple(draw(CELLS) for _ in inputs),
                             tuple(draw(CELL_OPERANDS) for _ in outputs))
                 for _ in range(draw(st.integers(0, 3))))
    return ir.Table(draw(NAMES), draw(st.sampled_from(["first", "unique", "collect"])), inputs,
                    outputs, rows, draw(st.none() | TEXT), draw(st.integers(-50, 50)))


TESTS = st.builds(ir.TestCase, TEXT, st.lists(st.builds(ir.Given, NAMES, EXPRS, st.none() | DATES),
                                              min_size=1, max_size=2).map(tuple), EXPRS)
RULESETS = st.builds(
    ir.Ruleset,
    st.lists(NAMES, min_size=1, max_size=3).map(".".join),
    st.lists(st.builds(ir.InputDecl, NAMES, NAMES), max_size=2).map(tuple),
    st.lists(st.one_of(RULES, tables()), max_size=3).map(tuple),
    st.none() | TEXT, st.none() | st.integers(0, 99),
    st.none() | st.sampled_from(["accept", "refer", "decline"]),
    st.lists(st.builds(ir.Const, NAMES, EXPRS), max_size=2).map(tuple),
    st.lists(TESTS, max_size=2).map(tuple),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RULESETS)
def test_printed_ruleset_parses_back_to_the_same_ir_when_generated_at_random(ruleset):
    text = format_ruleset(ruleset)
    tree, diagnostics = parse_file(text)
    assert diagnostics == [], text
    built, problems = build_ruleset(tree, text)
    assert [p for p in problems if p.code != "E110"] == [], text
    assert built == ruleset, text
