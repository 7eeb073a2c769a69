"""The static analysis agrees with the engine: warnings and overlap errors checked by brute force.

On one numeric subject with small literals, every region of the number line is sampled, so the
analysis must be exact there: W200 iff no sample fires the rule, W300 iff some sample matches no
row, E301 iff some sample matches two rows of a unique table.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from insureops.dsl.api import check_source
from insureops.engine.evaluation.compiler import compile_ir
from insureops.engine.ir.errors import EvaluationError

SAMPLES = [None] + [Decimal(n) / 2 for n in range(-2, 14)]  # -1, -0.5, 0, ..., 6.5
LITERAL = st.integers(0, 5).map(str)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def atoms(draw, subject: str = "x.n") -> str:
    kind = draw(st.sampled_from(["cmp", "between", "in", "not in", "null", "not null"]))
    if kind == "cmp":
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        return f"{subject} {op} {draw(LITERAL)}"
    if kind == "between":
        low, high = sorted(draw(st.lists(LITERAL, min_size=2, max_size=2)), key=int)
        return f"{subject} between {low} and {high}"
    if kind in ("in", "not in"):
        items = draw(st.lists(LITERAL, min_size=1, max_size=3))
        return f"{subject} {kind} {{{', '.join(items)}}}"
    return f"{subject} is {'not ' if kind == 'not null' else ''}null"


@st.composite
def cells(draw) -> str:
    if draw(st.integers(0, 5)) == 0:
        return "-"
    cell = draw(atoms(subject="").filter(lambda text: "not null" not in text)).strip()
    return cell.removeprefix("== ")


def fires(compiled, value) -> bool:
    return compiled.evaluate({"x": {"n": value}}).decision == "accept"


@SETTINGS
@given(st.lists(atoms(), min_size=1, max_size=3))
def test_unreachable_warning_is_exact_when_atoms_compare_one_number(conjuncts):
    source = f"ruleset a\ninput x: Any\nrule r when {' and '.join(conjuncts)} then accept \"y\" end\n"
    report = check_source(source)
    warned = [d.code for d in report.diagnostics] == ["W200"]
    compiled = compile_ir(report.ruleset, input_schemas={"x": None})
    assert warned == (not any(fires(compiled, value) for value in SAMPLES)), source


@SETTINGS
@given(st.lists(cells(), min_size=1, max_size=4), st.sampled_from(["first", "unique"]))
def test_table_gap_and_overlap_reports_are_exact_when_one_number_column(row_cells, hit):
    rows = "\n".join(f"    | {cell} | {index} |" for index, cell in enumerate(row_cells))
    source = f"ruleset a\ninput x: Any\ntable t hit {hit}\n    | x.n | => k |\n{rows}\nend\n"
    report = check_source(source)
    found = {d.code for d in report.diagnostics}
    compiled = compile_ir(report.ruleset, input_schemas={"x": None})
    uncovered = overlapping = False
    for value in SAMPLES:
        try:
            matched = "t" in compiled.evaluate({"x": {"n": value}}).fired
        except EvaluationError:
            overlapping = True
            continue
        if value is not None and not matched:
            uncovered = True
    catch_all = any(cell == "-" for cell in row_cells)
    assert ("W300" in found) == (uncovered and not catch_all), source
    assert ("E301" in found) == overlapping, source


@SETTINGS
@given(st.lists(atoms(), min_size=1, max_size=2), st.lists(atoms(), min_size=1, max_size=3))
def test_shadowed_rule_never_fires_when_reported_shadowed(stopping, later):
    source = (f"ruleset a\ninput x: Any\n"
              f"rule r priority 10 when {' and '.join(stopping)} then decline \"n\" stop end\n"
              f"rule s when {' and '.join(later)} then accept \"y\" end\n")
    report = check_source(source)
    if "W201" not in {d.code for d in report.diagnostics}:
        return
    compiled = compile_ir(report.ruleset, input_schemas={"x": None})
    assert not any("s" in compiled.evaluate({"x": {"n": v}}).fired for v in SAMPLES), source


TEXTS = st.sampled_from(['"A"', '"B"', '"C"'])
TEXT_CELLS = st.one_of(
    st.just("-"), st.just("is null"), TEXTS, st.builds(lambda t: f"!= {t}", TEXTS),
    st.builds(lambda op, items: f"{op} {{{', '.join(items)}}}", st.sampled_from(["in", "not in"]),
              st.lists(TEXTS, min_size=1, max_size=2)),
)


@SETTINGS
@given(st.lists(TEXT_CELLS, min_size=1, max_size=4), st.sampled_from(["first", "unique"]))
def test_table_reports_are_exact_when_one_string_column(row_cells, hit):
    rows = "\n".join(f"    | {cell} | {index} |" for index, cell in enumerate(row_cells))
    source = f"ruleset a\ninput x: Any\ntable t hit {hit}\n    | x.s | => k |\n{rows}\nend\n"
    report = check_source(source)
    found = {d.code for d in report.diagnostics}
    compiled = compile_ir(report.ruleset, input_schemas={"x": None})
    uncovered = overlapping = False
    for value in [None, "A", "B", "C", "D"]:
        try:
            matched = "t" in compiled.evaluate({"x": {"s": value}}).fired
        except EvaluationError:
            overlapping = True
            continue
        uncovered |= value is not None and not matched
    assert ("W300" in found) == (uncovered and "-" not in row_cells), source
    assert ("E301" in found) == overlapping, source
