"""`insureops rotate-keys`: re-encrypt the secrets at rest with the newest Fernet key."""

from __future__ import annotations

import asyncio

import click


@click.command("rotate-keys")
@click.option("--database-url", default=None,
              help="Platform database URL [INSUREOPS_DATABASE_URL, ./insureops.db].")
def rotate_keys(database_url: str | None) -> None:
    """Re-encrypt the secrets at rest (tenant database URLs, LLM provider keys, webhook signing
    secrets) with the first key of INSUREOPS_FERNET_KEYS, all in one transaction.

    Put the new key first (the old ones after it), run this, then remove the old keys.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from insureops.platform.auth.secret_keys import ConfigurationError, load_secret_keys
    from insureops.platform.cli.serve import _settings
    from insureops.platform.data.database import Database

    # Every model on Base.metadata: the tenant_databases row's foreign key names `workspaces`,
    # which SQLAlchemy could not resolve when only tenant_databases was imported (issue 15).
    from insureops.platform.migrations import env_models  # noqa: F401
    from insureops.platform.records.llm_keys import LlmKeySecretError, rotate_llm_keys
    from insureops.platform.tenancy.databases import (
        TenantDatabaseSecretError,
        rotate_tenant_database_keys,
    )
    from insureops.platform.webhooks.signing import WebhookSecretError, rotate_webhook_secrets

    settings = _settings(database_url=database_url)

    async def run() -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        database = Database.connect(settings.database_url)
        try:
            fernet = load_secret_keys(settings).fernet
            async with database.unit_of_work() as uow:
                return (await rotate_tenant_database_keys(uow, fernet),
                        await rotate_llm_keys(uow, fernet),
                        await rotate_webhook_secrets(uow, fernet))
        finally:
            await database.engine.dispose()

    try:
        (rows, changed), (llm_rows, llm_changed), (hook_rows, hook_changed) = asyncio.run(run())
    except (ConfigurationError, TenantDatabaseSecretError, LlmKeySecretError,
            WebhookSecretError) as exc:
        raise click.ClickException(str(exc)) from None
    except SQLAlchemyError as exc:  # a message, not a trace
        raise click.ClickException(f"rotation failed: {type(exc).__name__}") from None
    click.echo(f"tenant database URLs: {rows} stored, {changed} re-encrypted with the newest key")
    click.echo(f"LLM provider keys: {llm_rows} stored, {llm_changed} re-encrypted with the "
               "newest key")
    click.echo(f"webhook signing secrets: {hook_rows} stored, {hook_changed} re-encrypted with "
               "the newest key")
