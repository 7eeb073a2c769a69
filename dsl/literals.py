"""Literal text -> values: numbers, strings (escapes, `{expr}` parts), dates, datetimes, durations."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from insureops.engine.ir.values import Duration

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "{": "{", "}": "}"}


class LiteralValueError(ValueError):
    """A literal that lexes but has no value; `offset` is its position inside the literal text."""

    def __init__(self, message: str, offset: int = 0, length: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.length = length


def parse_number(text: str) -> Decimal:
    """`5_000_000` -> Decimal('5000000'); the scale is kept (`1.20` stays 1.20)."""
    return Decimal(text.replace("_", ""))


def parse_whole_number(text: str, what: str) -> int:
    """A number that must be whole (`version 3`, `priority 100`, `90 days`)."""
    value = parse_number(text)
    if value != value.to_integral_value():
        raise LiteralValueError(f"{what} must be a whole number, not {text}", 0, len(text))
    return int(value)


def parse_date(text: str) -> date:
    """`2025-01-31`; an impossible calendar date is an error naming it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise LiteralValueError(f"`{text}` is not a calendar date", 0, len(text)) from None


def parse_datetime(text: str) -> datetime:
    """`2025-01-31T10:00:00Z` or with an offset such as `+02:00`; always timezone-aware."""
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise LiteralValueError(f"`{text}` is not a valid datetime", 0, len(text)) from None


def parse_duration(number: str, unit: str) -> Duration:
    """`90 days`, `1 year`: singular and plural units."""
    amount = parse_whole_number(number, "a duration")
    return Duration.of(amount, unit.removesuffix("s"))  # type: ignore[arg-type]


def decode_string(inner: str, *, braces: bool = False) -> str:
    """The value of a string's text between its quotes: escapes `\\" \\\\ \\n \\t \\uXXXX`.
    With braces=True (a message's literal part) `{{` and `}}` are single braces."""
    out: list[str] = []
    index = 0
    while index < len(inner):
        char = inner[index]
        if char == "\\":
            index = _decode_escape(inner, index, out)
            continue
        if braces and char in "{}" and inner[index + 1:index + 2] == char:
            index += 1
        out.append(char)
        index += 1
    return "".join(out)


def _decode_escape(inner: str, index: int, out: list[str]) -> int:
    code = inner[index + 1:index + 2]
    if code == "u":
        digits = inner[index + 2:index + 6]
        if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
            out.append(chr(int(digits, 16)))
            return index + 6
        raise LiteralValueError("`\\u` needs four hex digits, as in `\\u00e9`", index, 2)
    if code in _ESCAPES:
        out.append(_ESCAPES[code])
        return index + 2
    raise LiteralValueError(f"unknown escape `\\{code}`", index, 2)


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a message string: literal text (already decoded) or an expression's text,
    with its offset inside the string's inner text."""

    is_expression: bool
    text: str
    offset: int


def split_message(inner: str) -> list[Part]:
    """Split a message string's inner text into literal parts and `{expr}` parts.

    `{{` and `}}` are literal braces; a `{` without its closing `}` stays literal text."""
    parts: list[Part] = []
    literal_start = 0
    index = 0
    while index < len(inner):
        char = inner[index]
        if char == "\\" or char in "{}" and inner[index + 1:index + 2] == char:
            index += 2
        elif char == "{":
            close = _closing_brace(inner, index + 1)
            if close is None:
                index += 1
                continue
            if index > literal_start:
                raw = inner[literal_start:index]
                parts.append(Part(False, decode_string(raw, braces=True), literal_start))
            parts.append(Part(True, inner[index + 1:close], index + 1))
            index = literal_start = close + 1
        else:
            index += 1
    if literal_start < len(inner):
        parts.append(Part(False, decode_string(inner[literal_start:], braces=True), literal_start))
    return parts


def _closing_brace(inner: str, index: int) -> int | None:
    in_string = False
    while index < len(inner):
        char = inner[index]
        if char == "\\" and in_string:
            index += 2
            continue
        if char == '"':
            in_string = not in_string
        elif not in_string and char == "{":
            return None
        elif not in_string and char == "}":
            return index
        index += 1
    return None
