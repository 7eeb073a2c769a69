"""The admission of heavy work: a workspace's share, round-robin turns, a bounded queue."""

from __future__ import annotations

import asyncio

import pytest

from insureops.platform.compute.admission import ServiceBusyError, WorkGate, WorkspaceBusyError


async def _hold(gate: WorkGate, workspace: str, log: list[str], release: asyncio.Event) -> None:
    async with gate.admit(workspace):
        log.append(workspace)
        await release.wait()


async def test_a_workspace_past_its_share_is_refused_when_it_asks_for_more():
    gate = WorkGate(capacity=4, per_workspace=2, max_waiting=10)
    release = asyncio.Event()
    held = [asyncio.create_task(_hold(gate, "a", [], release)) for _ in range(2)]
    await asyncio.sleep(0)
    with pytest.raises(WorkspaceBusyError):
        async with gate.admit("a"):
            pass
    async with gate.admit("b"):  # another workspace is admitted at once
        assert gate.running == 3
    release.set()
    await asyncio.gather(*held)
    assert gate.running == 0 and gate.waiting == 0


async def test_waiting_jobs_take_turns_across_workspaces_when_slots_free():
    gate = WorkGate(capacity=1, per_workspace=3, max_waiting=10)
    order: list[str] = []
    releases = {}

    async def job(workspace: str, n: int) -> None:
        releases[(workspace, n)] = release = asyncio.Event()
        await _hold(gate, workspace, order, release)

    tasks = [asyncio.create_task(job(w, n)) for w, n in
             [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("c", 0)]]
    for _ in range(5):
        await asyncio.sleep(0)
    assert order == ["a"] and gate.waiting == 4
    for key in [("a", 0), ("a", 1), ("b", 0), ("c", 0), ("a", 2)]:
        releases[key].set()
        for _ in range(5):
            await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    # a queued first and thrice, yet b and c each ran before a's third job
    assert order == ["a", "a", "b", "c", "a"]


async def test_a_new_job_is_503_when_the_queue_is_full():
    gate = WorkGate(capacity=1, per_workspace=5, max_waiting=1)
    release = asyncio.Event()
    first = asyncio.create_task(_hold(gate, "a", [], release))
    second = asyncio.create_task(_hold(gate, "b", [], release))
    await asyncio.sleep(0)
    with pytest.raises(ServiceBusyError):
        async with gate.admit("c"):
            pass
    release.set()
    await asyncio.gather(first, second)


async def test_a_cancelled_waiter_gives_up_its_place_when_its_request_goes_away():
    gate = WorkGate(capacity=1, per_workspace=5, max_waiting=5)
    release = asyncio.Event()
    running = asyncio.create_task(_hold(gate, "a", [], release))
    await asyncio.sleep(0)
    waiter = asyncio.create_task(_hold(gate, "b", [], asyncio.Event()))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert gate.waiting == 0
    release.set()
    await running
    assert gate.running == 0
    async with gate.admit("b"):  # its share was given back too
        assert gate.running == 1
