"""Which modules define job kinds and periodic duties: importing them fills the registry.

An area that defines jobs adds its module here (the composition root and `insureops worker`
load this list, so every process that enqueues or runs jobs knows the same kinds).
"""

from __future__ import annotations

import importlib

JOB_MODULES: tuple[str, ...] = (
    "insureops.platform.rules_studio.work.jobs",
    "insureops.platform.webhooks.jobs",
)


def load_job_kinds() -> None:
    """Import every module of JOB_MODULES (once; later calls cost nothing), and every model of
    the platform database: a job's statements name tables whose foreign keys point at others
    (a webhook delivery's workspace), which SQLAlchemy resolves only when their models are
    loaded, and `insureops worker` imports nothing else."""
    importlib.import_module("insureops.platform.migrations.env_models")
    for module in JOB_MODULES:
        importlib.import_module(module)
