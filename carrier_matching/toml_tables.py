"""Reading TOML tables with every problem located: where each key sits (`Locator`), typed access
to one table's fields (`TableReader`), and the nesting bound checked before `tomllib` runs."""

from __future__ import annotations

import difflib
import re
from datetime import date, datetime
from decimal import Decimal

from insureops.carrier_matching.jurisdictions import STATE_CODES
from insureops.carrier_matching.market import Problem

# Arrays and inline tables nested deeper than this are refused before tomllib reads them: its
# recursive descent raised RecursionError at a few hundred levels (issue 28). A manifest needs 2.
MAX_MANIFEST_DEPTH = 64
ALL_STATES = "all"
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")
ARRAY_TABLES = ("products", "territories", "intermediaries")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
# What may hold a bracket without nesting: the four kinds of string (a multi-line one may end
# in up to two extra quotes) and comments; then the brackets themselves.
_NESTING = re.compile(
    r'"""(?:[^\\]|\\.)*?"{3,5}'
    r"|'''.*?'{3,5}"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
    r"|[\[\]{}]", re.DOTALL)


class Locator:
    """Line and column of each `key =` per table (`carrier`, `products[i]`) in the manifest."""

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, str], tuple[int, int]] = {}
        self.tables: dict[str, int] = {}
        table, counts = "", dict.fromkeys(ARRAY_TABLES, -1)
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            array = stripped[2:].split("]]", 1)[0].strip() if stripped.startswith("[[") else None
            if array in counts:
                counts[array] += 1
                table = f"{array}[{counts[array]}]"
                self.tables[table] = number
            elif stripped.startswith("["):
                table = stripped.strip("[]").strip()
                self.tables[table] = number
            elif (match := _KEY.match(line)) is not None:
                self.keys.setdefault((table, match.group(1)), (number, match.start(1) + 1))

    def where(self, table: str, key: str | None) -> tuple[int | None, int | None]:
        if key is not None and (table, key) in self.keys:
            return self.keys[(table, key)]
        if table in self.tables:
            return self.tables[table], 1
        return None, None


class TableReader:
    """Typed access to one table of the manifest, recording a located problem per bad field."""

    def __init__(self, path: str, locator: Locator, table: str, data: dict,
                 problems: list[Problem]) -> None:
        self.path, self.locator, self.table, self.data = path, locator, table, data
        self.problems = problems

    def problem(self, key: str | None, code: str, message: str) -> None:
        line, column = self.locator.where(self.table, key)
        self.problems.append(Problem(self.path, line, column, code, message))

    def field_name(self, key: str) -> str:
        return f"{self.table}.{key}"

    def unknown_fields(self, known: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean `{close[0]}`?)" if close else ""
                self.problem(key, "unknown_field", f"unknown field `{self.field_name(key)}`{hint}")

    def text(self, key: str, *, required: bool = True) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be a non-empty string")
            return None
        return value.strip()

    def choice(self, key: str, options: tuple[str, ...], *, required: bool = True) -> str | None:
        value = self.text(key, required=required)
        if value is not None and value not in options:
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` \"{value}\" must be one "
                         f"of {', '.join(options)}")
            return None
        return value

    def day(self, key: str) -> date | None:
        value = self.data.get(key)
        if value is None:
            self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return None
        if isinstance(value, datetime) or not isinstance(value, date):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be a date "
                         "(2026-01-31, unquoted)")
            return None
        return value

    def link(self, key: str, *, required: bool = False) -> str | None:
        value = self.text(key, required=required)
        if value is not None and not value.startswith("https://"):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be an https:// "
                         "address")
            return None
        return value

    def email(self, key: str, *, required: bool = False) -> str | None:
        value = self.text(key, required=required)
        if value is not None and not EMAIL.match(value):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be an e-mail "
                         "address")
            return None
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be true or false")
            return default
        return value

    def amount(self, key: str, *, required: bool = True) -> Decimal | None:
        value = self.data.get(key)
        if value is None:
            if required:
                self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            self.problem(key, "invalid_field",
                         f"`{self.field_name(key)}` must be a number of dollars, 0 or more")
            return None
        return Decimal(str(value))

    def states(self, key: str, default: frozenset[str] | None) -> frozenset[str] | None:
        value = self.data.get(key)
        if value is None:
            if default is None:
                self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return default
        if value == ALL_STATES:
            return STATE_CODES
        if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be \"all\" or a "
                         "non-empty list of state codes")
            return None
        unknown = sorted({s for s in value if s not in STATE_CODES})
        if unknown:
            self.problem(key, "unknown_state", f"`{self.field_name(key)}` has unknown state "
                         f"code(s) {', '.join(unknown)} (the 50 states and DC, e.g. \"NY\")")
            return None
        return frozenset(value)


def too_deep(text: str) -> tuple[int, int] | None:
    """Line and column of the outermost bracket of a value nested deeper than the bound, else
    None. Brackets count outside strings and comments (a table header counts one or two
    levels), so this never sees less nesting than tomllib would."""
    depth = start = 0
    for match in _NESTING.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            start = match.start() if depth <= 0 else start
            depth = max(depth, 0) + 1
            if depth > MAX_MANIFEST_DEPTH:
                line_start = text.rfind("\n", 0, start) + 1
                return text.count("\n", 0, start) + 1, start - line_start + 1
        elif token in ("]", "}"):
            depth -= 1
    return None


def toml_position(message: str) -> tuple[int | None, int | None]:
    match = re.search(r"\(at line (\d+), column (\d+)\)", message)
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)


def toml_message(message: str) -> str:
    return re.sub(r"\s*\(at line \d+, column \d+\)", "", message) or message
