"""Reading and evaluating cases files (platform/batch/cases.py)."""

from __future__ import annotations

import io
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from insureops.dsl.api import compile_ruleset
from insureops.engine.inputs import jsonio
from insureops.engine.ir.result import Result
from insureops.platform.batch.cases import (
    PROGRESS_EVERY,
    Case,
    CaseError,
    CaseEvaluator,
    CaseLineTooLongError,
    CaseReader,
    result_line,
)

RULESET = """\
ruleset cases.sample
input business: Business
input extra: Any
rule big
when business.annual_revenue > 1000 and date(extra.since) > date("2020-01-01")
then
    score += 5
    accept "big"
end
"""


def _read(text: str, **options) -> list:
    return list(CaseReader(io.BytesIO(text.encode()), default_as_of=date(2026, 1, 1), **options))


@pytest.fixture(scope="module")
def evaluator() -> CaseEvaluator:
    return CaseEvaluator(compile_ruleset(RULESET, filename="sample.rules"), filename="sample.rules")


def test_reader_parses_numbers_as_decimals_and_skips_blank_lines():
    (case,) = _read('\n{"id": 7, "inputs": {"business": {"annual_revenue": 1.20}}}\n\n')
    assert case.line == 2
    assert case.id == 7
    assert case.inputs == {"business": {"annual_revenue": Decimal("1.20")}}
    assert case.as_of == date(2026, 1, 1)
    assert case.error is None


def test_reader_uses_the_case_as_of_when_given():
    (case,) = _read('{"id": "a", "as_of": "2025-02-28", "inputs": {}}')
    assert case.as_of == date(2025, 2, 28)


@pytest.mark.parametrize(("line", "code"), [
    ("{not json", "invalid_json"),
    ('"just a string"', "invalid_case"),
    ('{"id": 1}', "invalid_case"),
    ('{"id": 1, "inputs": []}', "invalid_case"),
    ('{"id": 1, "as_of": "01/02/2025", "inputs": {}}', "invalid_as_of"),
    ('{"id": 1, "as_of": 20250102, "inputs": {}}', "invalid_as_of"),
    ('{"id": 1, "as_of": "20250102", "inputs": {}}', "invalid_as_of"),
    ('{"id": 1, "as_of": "2025-W01-4", "inputs": {}}', "invalid_as_of"),
    (b'{"id": 1, "inputs": {"x": "\xff"}}'.decode("latin-1"), "invalid_json"),
])
def test_reader_reports_an_error_when_the_line_is_not_a_case(line: str, code: str):
    reader = CaseReader(io.BytesIO(line.encode("latin-1")), default_as_of=None)
    (case,) = list(reader)
    assert case.error is not None
    assert (case.error.code, case.error.line) == (code, 1)
    assert case.inputs is None


def test_reader_reads_a_line_of_the_bound_and_stops_at_a_longer_one_when_bounded():
    case = b'{"id": 1, "inputs": {}}'
    bound = len(case)
    stream = io.BytesIO(case + b"\n" + case + b"\n" + case + b" \n" + case)
    reader = iter(CaseReader(stream, default_as_of=None, max_line_bytes=bound))
    assert [next(reader).line, next(reader).line] == [1, 2]
    with pytest.raises(CaseLineTooLongError) as refused:
        next(reader)
    assert refused.value.line == 3 and refused.value.bound == bound
    assert stream.tell() <= 3 * (bound + 1)  # read no further than one bound into line 3
    last = CaseReader(io.BytesIO(case + b"\n" + case + b"x"), default_as_of=None,
                      max_line_bytes=bound)
    with pytest.raises(CaseLineTooLongError):  # the last line, without its newline
        list(last)


def test_reader_reports_progress_in_bytes_read():
    text = '{"id": 1, "inputs": {}}\n' * (PROGRESS_EVERY + 5)
    seen: list[int] = []
    assert len(_read(text, on_progress=seen.append)) == PROGRESS_EVERY + 5
    assert seen == [len(text) // (PROGRESS_EVERY + 5) * PROGRESS_EVERY, len(text)]


def test_evaluator_returns_the_engine_result_when_inputs_are_complete(evaluator):
    (case,) = _read('{"id": 1, "inputs": {"business": {"annual_revenue": 5000}, '
                    '"extra": {"since": "2021-05-01"}}}')
    result = evaluator.evaluate(case)
    assert (result.decision, result.score, result.fired) == ("accept", 5, ("big",))


def test_evaluator_reports_missing_input_when_an_input_is_absent(evaluator):
    (case,) = _read('{"id": 1, "inputs": {"business": {}}}')
    error = evaluator.evaluate(case)
    assert isinstance(error, CaseError)
    assert (error.code, error.message) == ("missing_input", "missing input extra")


def test_evaluator_reports_the_engine_error_with_its_source_when_evaluation_fails(evaluator):
    (case,) = _read('{"id": 1, "inputs": {"business": {"annual_revenue": 5000}, '
                    '"extra": {"since": "yesterday"}}}')
    error = evaluator.evaluate(case)
    assert isinstance(error, CaseError)
    assert error.code != "internal_error"
    assert "yesterday" in error.message
    assert error.source is not None and error.source.startswith("sample.rules:5:")


def test_evaluator_outcomes_equal_evaluate_when_refused_cases_surround_evaluated_ones(
        evaluator):
    good = '{"id": %d, "inputs": {"business": {"annual_revenue": 5000}, "extra": {"since": %s}}}'
    lines = ["{not json", good % (2, '"2021-05-01"'), '{"id": 3, "inputs": {"business": {}}}',
             "[]", good % (5, '"yesterday"'), good % (6, '"2019-01-01"'), "{",
             '{"id": 8, "inputs": {}}']
    cases = _read("\n".join(lines))
    pairs = list(evaluator.outcomes(iter(cases)))
    assert [case for case, _ in pairs] == cases
    assert [outcome for _, outcome in pairs] == [evaluator.evaluate(case) for case in cases]
    assert [type(outcome) is Result for _, outcome in pairs] == [
        False, True, False, False, False, True, False, False]


def test_result_line_is_one_json_object_per_line(evaluator):
    (good, bad) = _read('{"id": "g", "inputs": {"business": {}, "extra": {}}}\n{oops\n')
    first = jsonio.loads(result_line(good, evaluator.evaluate(good)))
    second = result_line(bad, evaluator.evaluate(bad))
    assert first["id"] == "g" and first["result"]["ruleset"] == "cases.sample"
    assert second.endswith("\n") and second.count("\n") == 1
    assert jsonio.loads(second)["error"]["code"] == "invalid_json"
    assert jsonio.loads(second)["error"]["line"] == 2


# --- the direct writer and reader agree with engine.jsonio -------------------------------------

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("*.rules"))
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
DECIMALS = st.decimals(allow_nan=False, allow_infinity=False, places=3)
VALUES = st.recursive(
    st.none() | st.booleans() | TEXT | DECIMALS | st.dates(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_result_line_equals_the_generic_writer_on_every_example_case(path: Path):
    evaluator = CaseEvaluator(compile_ruleset(path.read_text(), filename=path.name),
                              filename=path.name)
    cases_file = path.with_name(f"{path.stem}_cases.jsonl")
    with cases_file.open("rb") as stream:
        cases = list(CaseReader(stream, default_as_of=date(2026, 3, 1)))
    memo: dict = {}  # shared by the whole file, as `rules simulate` shares it
    for case in cases * 2:
        outcome = evaluator.evaluate(case)
        key = "error" if isinstance(outcome, CaseError) else "result"
        expected = jsonio.dumps({"id": case.id, key: outcome.to_dict()}) + "\n"
        assert result_line(case, outcome) == expected
        assert result_line(case, outcome, memo) == expected


@settings(max_examples=200, deadline=None)
@given(case_id=VALUES, decision=st.sampled_from([None, "accept", "refer", "decline"]),
       score=DECIMALS, outputs=st.dictionaries(TEXT, VALUES, max_size=4),
       strings=st.lists(TEXT, max_size=3))
def test_result_line_equals_the_generic_writer_for_any_result(case_id, decision, score, outputs,
                                                               strings):
    result = Result("r.x", decision, score, outputs, strings, sorted(set(strings)), strings)
    case = Case(1, case_id, {}, None)
    expected = jsonio.dumps({"id": case_id, "result": result.to_dict()}) + "\n"
    assert result_line(case, result) == expected


@settings(max_examples=200, deadline=None)
@given(value=VALUES)
def test_reader_parses_like_jsonio_loads(value):
    line = jsonio.dumps({"id": 1, "inputs": {"v": value}})
    (case,) = _read(line)
    assert case.inputs == jsonio.loads(line)["inputs"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_reader_refuses_non_numbers_when_jsonio_does(constant):
    (case,) = _read(f'{{"id": 1, "inputs": {{"v": {constant}}}}}')
    assert case.error is not None and case.error.code == "invalid_json"
    with pytest.raises(ValueError):
        jsonio.loads(constant)


def test_reader_accepts_surrounding_whitespace_and_refuses_extra_data_when_scanning():
    spaced, extra = _read('  {"id": 1, "inputs": {"v": 2}}  \n{"id": 2, "inputs": {}} x\n')
    assert spaced.error is None and spaced.inputs == {"v": Decimal(2)}
    assert extra.error is not None and extra.error.code == "invalid_json"
    assert "Extra data" in extra.error.message


def test_a_deep_short_line_reads_as_the_json_module_reads_it():
    deep = '{"id": 2, "inputs": {"v": ' + "[" * 400 + "1" + "]" * 400 + "}}\n"
    (case,) = _read(deep)
    assert case.error is None
    assert case.inputs == json.loads(deep, parse_int=Decimal, parse_float=Decimal)["inputs"]


# --- msgspec reads most lines; the json module the rest, with the same outcome -----------------

ALL_FIELDS = """\
ruleset cases.every_field
input data: Any
rule echo
when data.n != data.m or data.n == data.m or data.n is null
then
    reason "{data.n} {data.m} {data.s} {data.l}"
    set n = data.n
    set m = data.m
    set l = data.l
end
"""


def _json_module_only(monkeypatch) -> None:
    import msgspec

    def refuse(raw: bytes) -> object:
        raise msgspec.DecodeError("refused")
    original = CaseReader.__init__

    def init(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        self._msgspec = refuse
    monkeypatch.setattr(CaseReader, "__init__", init)


def _outcome_lines(text: bytes) -> list[str]:
    compiled = compile_ruleset(ALL_FIELDS, filename="every.rules")
    evaluator = CaseEvaluator(compiled, filename="every.rules")
    cases = list(CaseReader(io.BytesIO(text), default_as_of=date(2026, 1, 1)))
    return [result_line(case, evaluator.evaluate(case)) for case in cases] + [
        repr((case.line, case.error, case.as_of)) for case in cases]


NUMBER_TEXTS = st.one_of(
    st.integers(-10**30, 10**30).map(str), st.sampled_from(["-0", "0", "-0.0", "1e5", "1E+5",
                                                            "-1.50e-3", "10" * 60, "0.000"]),
    st.decimals(allow_nan=False, allow_infinity=False).map(lambda d: format(d, "f")))


@settings(max_examples=150, deadline=None)
@given(n=NUMBER_TEXTS, m=NUMBER_TEXTS, s=TEXT, items=st.lists(NUMBER_TEXTS, max_size=3))
def test_reader_gives_the_same_results_when_msgspec_or_the_json_module_reads_the_line(
        n, m, s, items):
    line = (f'{{"id": {n}, "inputs": {{"data": {{"n": {n}, "m": {m}, "s": {jsonio.dumps(s)}, '
            f'"l": [{", ".join(items)}]}}}}}}\n').encode()
    with pytest.MonkeyPatch.context() as patch:
        _json_module_only(patch)
        expected = _outcome_lines(line)
    assert _outcome_lines(line) == expected


@pytest.mark.parametrize("line", [
    b'{"id": -0, "inputs": {"data": {"n": -0, "l": [-0]}}}',
    b'{"id": 1, "inputs": {"data": {"n": ' + b"9" * 950 + b'}}}',
    b'{"id": 1, "inputs": {"data": {"n": ' + b"9" * 5000 + b'}}}',
    b'{"id": 1, "inputs": {"data": {"n": 1}, "data": {"n": 2}}}',
    b'{"id": 1, "inputs": {"data": {"s": "\\ud800 \\ud83d\\ude00 \\u00e9\\/"}}}',
    b'{"id": 1, "inputs": {"data": {"s": "\xff"}}}',
    b'{"id": 1, "inputs": {"data": {"s": "\xed\xa0\x80"}}}',
    b'{"id": 1, "inputs": {"data": {"s": "a\tb"}}}',
    b'\xef\xbb\xbf{"id": 1, "inputs": {"data": {}}}',
    b'{"id": 1, "inputs": {"data": {"n": NaN}}}',
    b'{"id": 1, "inputs": {"data": {"n": -Infinity}}}',
    b'{"id": 1, "inputs": {"data": {"n": 01}}}',
    b'{"id": 1, "inputs": {"data": {}}} x',
    b'{"id": 1, "inputs": {"data": {}}}\x0c\x1c',
    b' \t{"id": [1, {"a": -0}], "inputs": {"data": {}}}\r\n',
    b'{"id": 1, "as_of": 20250102, "inputs": {"data": {}}}',
    b'{"id": 1, "as_of": [1, 2.5], "inputs": {"data": {}}}',
    b'{"id": 1, "inputs": {"data": ' + b"[" * 70 + b"]" * 70 + b'}}',
    b'{"id": 1, "inputs": {"data": ' + b"[" * 2000 + b"]" * 2000 + b'}}',
    b'[1, 2]',
    b'{"id": 1, "inputs": [1]}',
    b'{"id": 1, "inputs": {"data": {"n": 1.0e400, "m": 12345678901234567890123}}}',
])
def test_reader_gives_the_same_outcome_when_the_line_is_unusual(line: bytes):
    def outcome() -> object:
        try:
            return _outcome_lines(line + b"\n")
        except RecursionError as error:  # the json module's own limit (unchanged behaviour)
            return repr(error)
    with pytest.MonkeyPatch.context() as patch:
        _json_module_only(patch)
        expected = outcome()
    assert outcome() == expected


def test_reader_reads_a_plain_line_with_msgspec_and_a_negative_zero_with_the_json_module():
    reader = CaseReader(io.BytesIO(b""), default_as_of=None)
    read, decode = [], reader._msgspec
    reader._msgspec = lambda raw: read.append(raw) or decode(raw)
    plain = reader.parse(1, b'{"id": 1, "as_of": "2026-01-01", "inputs": {"v": [1, 2.5]}}')
    assert plain.inputs == {"v": [1, Decimal("2.5")]} and type(plain.inputs["v"][0]) is int
    negative = reader.parse(2, b'{"id": 1, "inputs": {"v": -0}}')
    assert str(negative.inputs["v"]) == "-0"
    assert len(read) == 1


@settings(max_examples=300, deadline=None)
@given(number=st.decimals(allow_nan=True, allow_infinity=True)
       | st.builds(lambda digits, exponent: Decimal(f"{digits}E{exponent}"),
                   st.integers(-10**30, 10**30), st.integers(-40, 40)))
def test_plain_number_text_is_format_f_when_the_number_has_any_exponent(number):
    from insureops.platform.batch.cases import _plain
    assert _plain(number) == format(number, "f")
