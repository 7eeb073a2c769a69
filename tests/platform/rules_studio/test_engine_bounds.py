"""The engine's bounds over HTTP (issue 29): each attack a signed-up author can write answers a
4xx naming its bound within seconds, while the health check answers at once."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.platform.rules_studio.test_execute import execute, published_rule
from tests.platform.rules_studio.test_simulate import _doubled_reasons
from tests.platform.security import test_fairness  # its SCAN (not its fixtures)

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
SCAN = test_fairness.SCAN


async def _health(studio) -> float:
    started = time.perf_counter()
    response = await studio.client.get("/api/health/")
    assert response.status == 200
    return time.perf_counter() - started


async def _bounded(studio, owner, source: str, inputs: dict) -> tuple[dict, float]:
    rule = await published_rule(studio, owner, source)
    started = time.perf_counter()
    running = asyncio.create_task(execute(studio, owner, rule["id"], inputs=inputs))
    health = await _health(studio)
    response = await running
    elapsed = time.perf_counter() - started
    assert response.status == 422, await response.text()
    assert health < 0.1 and elapsed < 5, (health, elapsed)
    return (await response.json())["error"], elapsed


async def test_a_quadratic_scan_is_422_at_the_work_budget_within_seconds(studio, owner):
    # 9,000 items (a request body holds at most 10,000 values): 81 million lookups
    error, _ = await _bounded(studio, owner, SCAN, {"c": {"items": list(range(9_000))}})
    assert error["code"] == "evaluation_failed"
    assert error["details"][0]["message"].startswith("limit_steps:")
    assert "Limits.max_steps" in error["details"][0]["message"]


async def test_a_result_of_doubled_strings_is_422_at_the_result_bound(studio, owner):
    error, _ = await _bounded(studio, owner, _doubled_reasons(3), {"c": {}})
    assert error["code"] == "evaluation_failed"
    assert error["details"][0]["message"].startswith("limit_result_size:")
    assert "Limits.max_result_size" in error["details"][0]["message"]
