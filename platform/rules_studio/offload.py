"""The studio's CPU work sent to the rules worker processes, each kind with its budget.

Checking, saving (check, compile and embedded tests), simulating and executing a ruleset run a
source the workspace wrote: each goes through the workspace's admission and runs in a worker
process under a hard deadline (platform.compute), never on the event loop or its threads.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from insureops.platform.compute.heavy_work import Budget, HeavyWork, WorkBudgetExceededError
from insureops.platform.rules_studio import jobs
from insureops.platform.rules_studio.checking import Analysis
from insureops.platform.rules_studio.errors import SimulationTooLargeError, SimulationTooSlowError
from insureops.platform.rules_studio.execution import Evaluation
from insureops.platform.rules_studio.simulation import CLI_HINT, SimulationInput

# A simulation checks its own budget between cases and stops with how far it got; the
# worker's hard deadline, this much later, catches a single case that never returns.
SIMULATION_GRACE_SECONDS = 1.0


@dataclass(frozen=True)
class StudioWork:
    """The studio's jobs with their budgets (seconds)."""

    heavy: HeavyWork
    check_seconds: float
    execute_seconds: float
    simulation_seconds: float

    def _check_budget(self, what: str) -> Budget:
        return Budget(what, self.check_seconds, "INSUREOPS_RULES_CHECK_SECONDS",
                      "check it offline with `insureops rules check FILE`, or split it")

    async def check(self, workspace_id: str, source: str) -> dict:
        return await self.heavy.run(workspace_id, self._check_budget("Checking the ruleset"),
                                    jobs.check, source)

    async def complete(self, workspace_id: str, source: str, line: int, column: int,
                       known_source: str | None) -> dict:
        return await self.heavy.run(workspace_id, self._check_budget("Completing at the cursor"),
                                    jobs.complete, source, line, column, known_source)

    async def hover(self, workspace_id: str, source: str, line: int, column: int) -> dict:
        return await self.heavy.run(workspace_id, self._check_budget("Explaining the name at the cursor"),
                                    jobs.hover, source, line, column)

    async def analyse(self, workspace_id: str, source: str, today: datetime.date) -> Analysis:
        budget = self._check_budget("Checking, compiling and testing the ruleset")
        return await self.heavy.run(workspace_id, budget, jobs.analyse, source, today)

    async def execute(self, workspace_id: str, source: str, inputs: dict | None,
                      record: tuple[str, dict] | None, as_of: datetime.date,
                      explain: bool) -> tuple[dict, Evaluation]:
        budget = Budget("Executing the ruleset", self.execute_seconds,
                        "INSUREOPS_RULES_EXECUTE_SECONDS",
                        "simulate large inputs offline with `insureops rules simulate`")
        return await self.heavy.run(workspace_id, budget, jobs.execute, source, inputs, record,
                                    as_of, explain)

    async def record_input(self, workspace_id: str, source: str, record_type: str) -> str:
        budget = self._check_budget("Compiling the ruleset")
        return await self.heavy.run(workspace_id, budget, jobs.record_input_name, source,
                                    record_type)

    async def check_target(self, workspace_id: str, source: str, record_type: str,
                           condition: str | None) -> None:
        """A binding's or run's ruleset takes the record type and its condition checks."""
        budget = self._check_budget("Checking the ruleset and the condition")
        await self.heavy.run(workspace_id, budget, jobs.check_target, source, record_type,
                             condition)

    async def simulate(self, workspace_id: str, job: SimulationInput) -> str:
        budget = Budget("The simulation", self.simulation_seconds + SIMULATION_GRACE_SECONDS,
                        "the simulation budget", CLI_HINT)
        try:
            return await self.heavy.run(workspace_id, budget, jobs.simulate, job,
                                        self.simulation_seconds)
        except WorkBudgetExceededError as exc:
            if exc.memory:
                raise SimulationTooLargeError(str(exc)) from None
            raise SimulationTooSlowError(str(exc)) from None
