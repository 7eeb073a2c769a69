"""Runtime value types of the rules language that Python lacks (durations), and value naming
and formatting shared by the evaluator, the explanations and the result writer.

Numbers are `decimal.Decimal`, dates `datetime.date`, datetimes aware `datetime.datetime`,
null is `None`, lists are Python lists (tuples are accepted), sets are frozensets, objects dicts.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Literal

DurationUnit = Literal["day", "week", "month", "year"]


def iso_date(text: str) -> date | None:
    """`YYYY-MM-DD` as a date; None for anything else. The one reading of a date string in
    inputs, `date()` and case files: `date.fromisoformat` alone also takes ISO week dates
    (`2026-W01-1`, also ten characters) and `20260101`."""
    if len(text) == 10 and text[4] == "-" and text[7] == "-":
        try:
            return date.fromisoformat(text)
        except ValueError:
            return None
    return None


def iso_datetime(text: str) -> datetime | None:
    """`YYYY-MM-DD`, alone or followed by `T` (or a space) and `HH:MM[:SS[.ffffff]]` with an
    optional offset (`Z`, `+02:00`), as a datetime (naive without an offset); None for anything
    else. `datetime.fromisoformat` alone also takes week dates, basic forms (`20260101T1000`)
    and any character between date and time."""
    if len(text) < 10 or text[4] != "-" or text[7] != "-" or (
            len(text) > 10 and (text[10] not in "Tt " or len(text) < 16 or text[13] != ":")):
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Duration:
    """`90 days`, `6 months`, `1 year`, `2 weeks`: kept as months and days, because a month is
    not a fixed number of days (Jan 31 + 1 month = Feb 28/29, clamped to the month's end).

    Adding a duration to a date adds the months first (clamping the day to the month's end),
    then the days. Durations are written in results as ISO 8601 strings (`P6M`, `P90D`, `P1M3D`).
    """

    months: int = 0
    days: int = 0

    @classmethod
    def of(cls, amount: int, unit: DurationUnit) -> Duration:
        if unit == "day":
            return cls(days=amount)
        if unit == "week":
            return cls(days=7 * amount)
        if unit == "month":
            return cls(months=amount)
        if unit == "year":
            return cls(months=12 * amount)
        raise ValueError(f"unknown duration unit {unit!r}")

    def negated(self) -> Duration:
        """The same span backwards in time."""
        return Duration(-self.months, -self.days)

    def plus(self, other: Duration) -> Duration:
        """The sum of two durations, component-wise."""
        return Duration(self.months + other.months, self.days + other.days)

    def add_to(self, moment: date) -> date:
        """`moment` moved by this duration: months first with month-end clamping, then days.
        Works for dates and (aware or naive) datetimes alike; the time of day is kept."""
        moved = add_months(moment, self.months) if self.months else moment
        if self.days:
            moved = moved + timedelta(days=self.days)
        return moved

    def iso(self) -> str:
        """ISO 8601 text: `P1Y2M` is not used (years are months), so `P14M`, `P90D`, `P1M3D`."""
        if not self.months and not self.days:
            return "P0D"
        text = "P"
        if self.months:
            text += f"{self.months}M"
        if self.days:
            text += f"{self.days}D"
        return text

    def __str__(self) -> str:
        parts = []
        if self.months:
            parts.append(f"{self.months} month" + ("" if abs(self.months) == 1 else "s"))
        if self.days or not parts:
            parts.append(f"{self.days} day" + ("" if abs(self.days) == 1 else "s"))
        return " ".join(parts)


def add_months(moment: date, months: int) -> date:
    """`moment` plus `months` calendar months, the day clamped to the target month's last day."""
    index = moment.year * 12 + (moment.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def kind_of(value: object) -> str:
    """The language's name for the type of a runtime value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (Decimal, int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, datetime):
        return "datetime"
    if isinstance(value, date):
        return "date"
    if isinstance(value, Duration):
        return "duration"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, (frozenset, set)):
        return "set"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def format_plain(value: object) -> str:
    """A value as it appears interpolated into a reason: strings bare, numbers plainly with
    their scale kept (`1.20`, `5000000`), booleans and null as the language writes them."""
    if isinstance(value, str):
        return value
    return format_literal(value)


def format_literal(value: object, *, grouping: bool = False) -> str:
    """A value as the language would write it (strings quoted, sets in braces, sorted). With
    `grouping`, numbers get thousands separators (`5,200,000`), as explanations show them."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Decimal):
        if not value.is_finite():
            return str(value)
        return format(value, ",f" if grouping else "f")
    if isinstance(value, (int, float)):
        return format(Decimal(str(value)), ",f" if grouping else "f")
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (date, Duration)):
        return value.isoformat() if isinstance(value, date) else str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_literal(v, grouping=grouping) for v in value) + "]"
    if isinstance(value, (frozenset, set)):
        items = sorted((format_literal(v, grouping=grouping) for v in value))
        return "{" + ", ".join(items) + "}"
    if isinstance(value, dict):
        entries = (f"{format_literal(str(k))}: {format_literal(v, grouping=grouping)}"
                   for k, v in value.items())
        return "{" + ", ".join(entries) + "}"
    return repr(value)
