"""Background jobs: one registry of job kinds, run by a PostgreSQL job queue (procrastinate)
when the platform database is PostgreSQL, or by the serve process itself on the embedded
default (SQLite). How to define and enqueue a job: docs/jobs.md and `registry`.

    from insureops.platform.jobs import JobContext, job

    @job("webhooks.deliver", retry=Retry(max_attempts=8, wait=2, exponential=True))
    async def deliver(context: JobContext, *, delivery_id: int) -> None: ...

    await app[JOBS].enqueue("webhooks.deliver", delivery_id=7)       # now
    await app[JOBS].enqueue_in(uow, "webhooks.deliver", delivery_id=7)  # with uow's commit
"""

from insureops.platform.jobs.registry import JobContext, Retry, every, job

__all__ = ["JobContext", "Retry", "every", "job"]
