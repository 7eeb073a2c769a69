"""The retry schedule and the switch-off policy: arithmetic, no clock."""

from __future__ import annotations

import datetime

import pytest

from insureops.platform.webhooks.schedule import DisablePolicy, RetrySchedule

T0 = datetime.datetime(2026, 11, 27, tzinfo=datetime.UTC)


def test_delays_grow_fourfold_up_to_the_cap_when_attempts_fail():
    schedule = RetrySchedule()
    assert [schedule.base_delay(n) for n in range(1, 8)] == [
        30, 120, 480, 1920, 7680, 30720, 43200]


def test_jitter_moves_a_delay_by_at_most_its_share_when_draws_differ():
    schedule = RetrySchedule()
    assert schedule.delay(1, 0.0) == pytest.approx(24.0)
    assert schedule.delay(1, 0.5) == pytest.approx(30.0)
    assert schedule.delay(1, 0.999999) == pytest.approx(36.0, abs=1e-3)
    assert schedule.delay(7, 0.5) == pytest.approx(12 * 3600)


def test_no_delay_follows_when_the_last_attempt_failed():
    assert RetrySchedule().delay(8, 0.5) is None
    assert RetrySchedule(attempts=3).delay(3, 0.1) is None


@pytest.mark.parametrize(("failures", "hours", "disabled"), [
    (20, 5 * 24, True), (19, 5 * 24, False), (20, 5 * 24 - 1, False), (500, 1, False)])
def test_endpoint_is_switched_off_only_when_failing_long_and_often(failures, hours, disabled):
    policy = DisablePolicy()
    assert policy.disables(failures, T0, T0 + datetime.timedelta(hours=hours)) is disabled
