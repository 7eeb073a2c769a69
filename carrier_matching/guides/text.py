"""Writing values into rules text: numbers as the language writes them, money as agents read it,
strings quoted, and reasons that name money with `${...}` (the matcher formats it)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


def number(value: Decimal | int | float) -> str:
    """A number literal: whole numbers grouped with `_` (1_000_000), decimals as they are."""
    amount = Decimal(str(value))
    if amount == amount.to_integral_value():
        return f"{int(amount):_}"
    return format(amount.normalize(), "f")


def money(value: Decimal | int | float) -> str:
    """Dollars as agents write them: $1,000,000 (cents only when there are any)."""
    amount = Decimal(str(value))
    if amount == amount.to_integral_value():
        return f"${int(amount):,}"
    return f"${amount:,.2f}"


def plain(value: Decimal | int | float) -> str:
    """A count in words' company: 25 or 2.5."""
    amount = Decimal(str(value))
    return str(int(amount)) if amount == amount.to_integral_value() else format(amount.normalize(), "f")


def quote(text: str) -> str:
    """A string literal of the rules language (for values, never for reasons)."""
    return json.dumps(text, ensure_ascii=False)


def message(text: str) -> str:
    """A reason literal whose `{...}` interpolate: only quotes and backslashes are escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def string_set(values) -> str:
    return "{" + ", ".join(quote(v) for v in values) + "}"


def json_value(value: Any) -> str:
    """A JSON value for a test's `given` (Decimals as numbers)."""
    return json.dumps(value, default=_default, ensure_ascii=False)


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(type(value).__name__)


def comment_block(text: str, width: int = 98) -> list[str]:
    """`text` as `# ` comment lines of at most `width` characters."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        words, current = paragraph.split(), "#"
        for word in words:
            if len(current) + 1 + len(word) > width:
                lines.append(current)
                current = "#"
            current += " " + word
        lines.append(current)
    return lines
