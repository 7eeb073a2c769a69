"""Runtime value types of the rules language that Python lacks: durations.

Numbers are `decimal.Decimal`, dates `datetime.date`, datetimes aware `datetime.datetime`,
null is `None`, lists are tuples or lists, sets are frozensets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DurationUnit = Literal["day", "week", "month", "year"]


@dataclass(frozen=True, slots=True)
class Duration:
    """`90 days`, `6 months`, `1 year`, `2 weeks`: kept as months and days, because a month is
    not a fixed number of days (Jan 31 + 1 month = Feb 28/29, clamped to the month's end)."""

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
