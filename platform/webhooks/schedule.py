"""When a failed delivery is tried again, and when a failing endpoint is switched off.

Pure arithmetic on numbers the caller gives (the attempt number, a random draw, times), so the
schedule is tested without a clock. docs/webhooks.md ("Retries") prints `SCHEDULE.table()`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass


@dataclass(frozen=True)
class RetrySchedule:
    """Exponential backoff with jitter: after failed attempt n (1-based) the next comes
    `first * factor**(n-1)` seconds later (at most `cap`), each delay moved by a random
    +-`jitter` share so the retries of many deliveries that failed together spread out.
    After `attempts` attempts the delivery has failed for good."""

    first_seconds: float = 30.0
    factor: float = 4.0
    cap_seconds: float = 12 * 3600.0
    attempts: int = 8
    jitter: float = 0.2

    def base_delay(self, attempt: int) -> float:
        """The delay after failed attempt `attempt`, before jitter."""
        return min(self.first_seconds * self.factor ** (attempt - 1), self.cap_seconds)

    def delay(self, attempt: int, draw: float) -> float | None:
        """Seconds until the next attempt after failed attempt `attempt`, `draw` a random number
        in [0, 1); None when that was the last attempt."""
        if attempt >= self.attempts:
            return None
        return self.base_delay(attempt) * (1 - self.jitter + 2 * self.jitter * draw)

    def table(self) -> str:
        """The schedule as docs/webhooks.md prints it."""
        lines = ["| attempt | after the previous one (before jitter) | after the first |",
                 "|---|---|---|", "| 1 | at once (within the sweep's 2 s) | 0:00:00 |"]
        total = 0.0
        for attempt in range(2, self.attempts + 1):
            delay = self.base_delay(attempt - 1)
            total += delay
            lines.append(f"| {attempt} | {datetime.timedelta(seconds=round(delay))} | "
                         f"{datetime.timedelta(seconds=round(total))} |")
        return "\n".join(lines)


@dataclass(frozen=True)
class DisablePolicy:
    """An endpoint is switched off (`disabled_reason: failing`) when its attempts have failed
    without a success for `failing_for` and at least `failures` attempts in a row failed; both,
    so neither a short outage with many events nor one old failure switches it off."""

    failures: int = 20
    failing_for: datetime.timedelta = datetime.timedelta(days=5)

    def disables(self, consecutive_failures: int, failing_since: datetime.datetime,
                 now: datetime.datetime) -> bool:
        return (consecutive_failures >= self.failures
                and now - failing_since >= self.failing_for)


SCHEDULE = RetrySchedule()
DISABLE = DisablePolicy()
