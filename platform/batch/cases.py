"""Cases files for `rules simulate` and `rules diff`: read a line, evaluate it, write a line.

A cases file is JSON Lines: `{"id": ..., "as_of": "YYYY-MM-DD" (optional), "inputs": {...},
"expect": {...} (optional, see batch.runs)}`, unknown keys ignored. Nothing is kept per
case and a line is read in one call bounded by MAX_LINE_BYTES, so memory stays flat however
long the file or its lines are; a case that cannot be read or evaluated becomes an error value
and the run goes on (a line over the bound ends it: CaseLineTooLongError). Lines are parsed
with msgspec where that reads them as the json module does (numbers as Decimal, integers as
int), else with the json module; result lines are written directly, with the same text as
`engine.jsonio`.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import partial
from typing import IO, Any, NamedTuple

import msgspec

from insureops.engine.evaluation.compiler import BatchItem
from insureops.engine.inputs import jsonio
from insureops.engine.ir.errors import EngineError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.result import Result
from insureops.engine.ir.values import iso_date

PROGRESS_EVERY = 2048  # lines between progress callbacks: cheap enough at 100k lines/s
# The longest case line, newline excluded: the service's largest body for a simulation
# (INSUREOPS_SIMULATION_MAX_BODY_BYTES' default, 10 MiB). A line is read in one bounded call, so
# a file without newlines (/dev/zero) costs this much memory and then ends the run.
MAX_LINE_BYTES = 10 * 1024 * 1024

# msgspec reads a line several times faster than the json module but gives JSON integers as
# ints. The engine converts an int as it does the Decimal of the same text, except `-0` (0)
# and ints of 904 or more digits (refused by their bit length, while their Decimal may be in
# range): lines that may hold either take the json module, and so do long lines nested deeply
# enough that the json module's recursion limit could differ (a line shorter than the longest
# int nests at most 452 levels, which both read alike).
_NEGATIVE_ZERO = re.compile(rb"-0(?![.eE0-9])")
_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
_LONG_INT = b"0" * 904
_SLOW = object()
_AS_OF_TYPES = frozenset({str, type(None)})
_new_tuple = tuple.__new__  # a named tuple built in C, without its Python-level __new__


@dataclass(frozen=True, slots=True)
class CaseError:
    """Why one case has no result. `line` is the case's line in the cases file; `source` is
    `RULES_FILE:LINE:COL` of the rule being evaluated when the engine knows it."""

    code: str
    message: str
    line: int
    source: str | None = None

    def to_dict(self) -> dict:
        found = {"code": self.code, "message": self.message, "line": self.line}
        if self.source is not None:
            found["source"] = self.source
        return found


class CaseLineTooLongError(ValueError):
    """A line of the cases file is longer than the bound: the run cannot go on past it."""

    def __init__(self, line: int, bound: int) -> None:
        super().__init__(f"a case line is longer than {bound:,} bytes, the most `rules "
                         "simulate` and `rules diff` read for one case")
        self.line = line
        self.bound = bound


class Case(NamedTuple):
    """One line of a cases file: its inputs and as-of date, or why it could not be read.
    (A named tuple: one is built per line, several times cheaper than a frozen dataclass.)"""

    line: int
    id: object
    inputs: dict | None
    as_of: date | None
    error: CaseError | None = None
    expect: object = None  # the line's `expect`, checked by batch.runs when present


class CaseReader:
    """Iterates the cases of a binary stream, reporting bytes read to `on_progress`."""

    def __init__(self, stream: IO[bytes], *, default_as_of: date | None,
                 on_progress: Callable[[int], None] | None = None,
                 max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.stream = stream
        self.max_line_bytes = max_line_bytes
        self.default_as_of = default_as_of
        self.on_progress = on_progress
        self._dates: dict[str, date] = {}
        # jsonio.loads's settings, with the decoder built once instead of per line (a third of
        # the parse time), for the lines msgspec does not read; tests check that both read
        # every line alike.
        decoder = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal,
                                   parse_constant=_refuse_constant)
        self._decode = decoder.decode
        # the C scanner itself, without decode()'s two whitespace regex matches per line
        self._scan = decoder.scan_once
        self._msgspec = msgspec.json.Decoder(float_hook=Decimal).decode
        self._max_depth = Limits().max_input_depth  # the engine's default, as CaseEvaluator

    def __iter__(self) -> Iterator[Case]:
        """The cases in order; raises CaseLineTooLongError at a line over the bound."""
        read = 0
        on_progress, parse, bound = self.on_progress, self.parse, self.max_line_bytes
        lines = iter(partial(self.stream.readline, bound + 1), b"")  # never a whole line unread
        for number, raw in enumerate(lines, start=1):
            if len(raw) > bound and raw[-1:] != b"\n":
                raise CaseLineTooLongError(number, bound)
            read += len(raw)
            if on_progress is not None and number % PROGRESS_EVERY == 0:
                on_progress(read)
            if raw and not raw.isspace():  # `raw.strip()` without copying the line
                yield parse(number, raw)
        if self.on_progress is not None:
            self.on_progress(read)

    def parse(self, number: int, raw: bytes) -> Case:
        """The case on line `number`, or a Case carrying an error."""
        data = _SLOW  # msgspec's, when the line holds no -0, long int or deep nesting
        if _NEGATIVE_ZERO.search(raw) is None and (len(raw) < len(_LONG_INT) or (
                _LONG_INT not in raw.translate(_DIGITS)
                and raw.count(b"{") + raw.count(b"[") <= self._max_depth)):
            try:
                data = self._msgspec(raw)
            except Exception:  # noqa: BLE001 - DecodeError, UnicodeDecodeError, ...: the
                data = _SLOW   # json module words the message
            # an int id is written as the json module's Decimal of it would be (`str`); a
            # bad as_of is quoted with `repr`, where they differ
            if type(data) is not dict or type(data.get("as_of", "")) not in _AS_OF_TYPES:
                data = _SLOW
        if data is _SLOW:
            try:
                data = self._slow(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                return self._invalid(number, None, "invalid_json", f"not a JSON line: {exc}")
            except RecursionError:  # the json module's own nesting limit
                return self._invalid(number, None, "invalid_json",
                                     "not a JSON line: nested too deeply to read")
        if not isinstance(data, dict):
            return self._invalid(number, None, "invalid_case", "a case must be a JSON object")
        case_id = data.get("id")
        inputs = data.get("inputs")
        if not isinstance(inputs, dict):
            return self._invalid(number, case_id, "invalid_case",
                                 'a case needs an "inputs" object')
        as_of = self.default_as_of
        text = data.get("as_of")
        if text is not None:
            as_of = (self._dates.get(text) if type(text) is str else None) or self._date(text)
            if as_of is None:
                return self._invalid(number, case_id, "invalid_as_of",
                                     f"as_of must be a YYYY-MM-DD date, got {text!r}")
        return _new_tuple(Case, (number, case_id, inputs, as_of, None, data.get("expect")))

    def _slow(self, raw: bytes) -> object:
        """The line's JSON through the json module (numbers as Decimal), raising its errors."""
        text = raw.decode("utf-8")
        try:
            data, end = self._scan(text, 0)
            if end != len(text) and not text[end:].isspace():
                raise ValueError("extra data")
        except (StopIteration, ValueError):  # decode() says what is wrong, or copes
            data = self._decode(text)         # with leading whitespace
        return data

    def _date(self, text: object) -> date | None:
        if not isinstance(text, str):
            return None
        found = self._dates.get(text)
        if found is None:
            found = iso_date(text)
            if found is None:
                return None
            if len(self._dates) < 4096:
                self._dates[text] = found
        return found

    @staticmethod
    def _invalid(number: int, case_id: object, code: str, message: str) -> Case:
        return Case(number, case_id, None, None, CaseError(code, message, number))


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


class CaseEvaluator:
    """Evaluates cases against one compiled ruleset, turning every failure into a CaseError."""

    def __init__(self, compiled: Any, *, filename: str, explain: bool = False,
                 limits: Limits | None = None) -> None:
        self.compiled = compiled
        self.filename = filename
        self.explain = explain
        self.limits = limits  # None: the engine's defaults
        self.input_names = tuple(decl.name for decl in compiled.ir.inputs)
        self._required = frozenset(self.input_names)

    def evaluate(self, case: Case) -> Any:
        """The engine's Result for `case`, or a CaseError."""
        refused = self._refused(case)
        if refused is not None:
            return refused
        try:
            return self.compiled.evaluate(case.inputs, as_of=case.as_of, explain=self.explain,
                                          limits=self.limits)
        except EngineError as exc:
            return self._error(exc, case)
        except (ArithmeticError, ValueError, TypeError, RecursionError) as exc:
            # an engine bug must not end a run over millions of cases: report it on this case
            return CaseError("internal_error", f"{type(exc).__name__}: {exc}", case.line)

    def outcomes(self, cases: Iterable[Case]) -> Iterator[tuple[Case, Any]]:
        """(case, `evaluate(case)`) for every case, in order, through the engine's batch entry
        point (`evaluate_many`): one case read, evaluated and handed back at a time."""
        refused: list[tuple[Case, CaseError]] = []  # read since the last evaluated case
        current: list[Case] = []  # the case evaluate_many is evaluating
        required = self._required

        def items() -> Iterator[BatchItem]:
            for case in cases:
                if case.error is None and case.inputs.keys() >= required:
                    current[:] = (case,)
                    yield _new_tuple(BatchItem, (case.inputs, case.as_of))
                else:
                    refused.append((case, self._refused(case)))

        for outcome in self.compiled.evaluate_many(items(), explain=self.explain,
                                                   limits=self.limits):
            if refused:  # evaluate_many reads one item per outcome: these came before it
                yield from refused
                refused.clear()
            case = current[0]
            yield case, outcome if type(outcome) is Result else self._error(outcome, case)
        yield from refused  # the cases refused after the last evaluated one

    def _refused(self, case: Case) -> CaseError | None:
        """The error of a case that cannot be evaluated at all (unreadable, inputs missing)."""
        if case.error is not None:
            return case.error
        if not case.inputs.keys() >= self._required:
            missing = [name for name in self.input_names if name not in case.inputs]
            return CaseError("missing_input", f"missing input {', '.join(missing)}", case.line)
        return None

    def _error(self, exc: EngineError, case: Case) -> CaseError:
        span = getattr(exc, "span", None)
        source = f"{self.filename}:{span.line}:{span.column}" if span is not None else None
        return CaseError(exc.code, exc.message, case.line, source)


def paired_outcomes(new: CaseEvaluator, old: CaseEvaluator | None,
                    cases: Iterable[Case]) -> Iterator[tuple[Case, Any, Any]]:
    """(case, outcome under `new`, outcome under `old` or None) for every case, in order,
    both through the engine's batch entry point (`CaseEvaluator.outcomes`)."""
    if old is None:
        for case, outcome in new.outcomes(cases):
            yield case, outcome, None
        return
    after: deque = deque()  # `new`'s outcomes of the cases `old` has read and not yet given

    def seen() -> Iterator[Case]:
        for case, outcome in new.outcomes(cases):
            after.append(outcome)
            yield case

    for case, before in old.outcomes(seen()):  # one pair per case, in order, in both
        yield case, after.popleft(), before


def result_line(case: Case, outcome: Any, memo: dict | None = None) -> str:
    """The output line of one case: `{"id", "result"}` or `{"id", "error"}`, newline-ended.

    Text identical to `jsonio.dumps({"id": ..., "result": result.to_dict()})` (a test holds
    them together), written directly for the usual flat result: the generic writer walks
    every value in Python and took more time than the evaluation itself. `memo`, a dict the
    caller keeps for a run, remembers the text of repeated strings and lists of them (the
    ruleset, decisions, rule names, tags and most reasons).
    """
    if isinstance(outcome, CaseError):
        return jsonio.dumps({"id": case.id, "error": outcome.to_dict()}) + "\n"
    if outcome.trace is not None or type(outcome.score) is not Decimal:
        return jsonio.dumps({"id": case.id, "result": outcome.to_dict()}) + "\n"
    if memo is None:
        memo = {}
    case_id = str(case.id) if type(case.id) is int else _scalar(case.id)
    ruleset, decision, outputs = outcome.ruleset, outcome.decision, outcome.outputs
    return "".join((
        '{"id": ', jsonio.dumps(case.id) if case_id is None else case_id,
        ', "result": {"ruleset": ', memo.get(ruleset) or _text(ruleset, memo),
        ', "decision": ', "null" if decision is None else (
            memo.get(decision) or _text(decision, memo)),
        ', "score": ', _plain(outcome.score),
        ', "outputs": ', _outputs(outputs) if outputs else "{}",
        ', "reasons": ', _strings(outcome.reasons, memo),
        ', "tags": ', _strings(outcome.tags, memo),
        ', "fired": ', _strings(outcome.fired, memo), "}}\n"))


MEMO_SIZE = 4096  # texts a result_line memo keeps (varying reasons would grow it forever)
_string = json.encoder.encode_basestring  # jsonio's string writer: UTF-8 text, not \u escapes


def _plain(number: Decimal) -> str:
    """`format(number, "f")`, as jsonio writes a Decimal: `str` gives the same text whenever
    it uses no exponent, several times faster."""
    text = str(number)
    return text if "E" not in text else format(number, "f")


def _text(value: str, memo: dict) -> str:
    """A string as jsonio writes it, remembered in `memo`."""
    text = memo.get(value)
    if text is None:
        text = _string(value)
        if len(memo) < MEMO_SIZE:
            memo[value] = text
    return text


def _strings(items: list[str], memo: dict) -> str:
    """A list of strings as jsonio writes it: `["a", "b"]`."""
    if not items:
        return "[]"
    key = tuple(items)
    text = memo.get(key)
    if text is None:
        text = "[" + ", ".join(map(_string, items)) + "]"
        if len(memo) < MEMO_SIZE:
            memo[key] = text
    return text


def _scalar(value: object) -> str | None:
    """A string, finite Decimal, bool or null as jsonio writes it; None for anything else."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is Decimal and value.is_finite():
        return _plain(value)
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    return None


def _outputs(outputs: dict) -> str:
    parts = []
    for name, value in outputs.items():
        kind = type(value)
        if kind is str:
            text = _string(value)
        elif kind is Decimal and value.is_finite():
            text = _plain(value)
        else:
            text = _scalar(value)
            if text is None:
                text = jsonio.dumps(value)
        parts.append(f"{_string(str(name))}: {text}")
    return "{" + ", ".join(parts) + "}"
