"""`insureops rotate-keys`: re-encrypt the secrets at rest with the newest Fernet key, and
replace the service's token-signing key (the previous one stays published for the overlap)."""

from __future__ import annotations

import asyncio
import datetime
import time

import click


@click.command("rotate-keys")
@click.option("--database-url", default=None,
              help="Platform database URL [INSUREOPS_DATABASE_URL, ./insureops.db].")
@click.option("--signing-key/--no-signing-key", default=True, show_default=True,
              help="Also replace the key the service signs its own tokens with.")
def rotate_keys(database_url: str | None, signing_key: bool) -> None:
    """Re-encrypt the secrets at rest (tenant database URLs, LLM provider keys, webhook signing
    secrets, signing keys) with the first key of INSUREOPS_FERNET_KEYS, and make a new
    token-signing key current, all in one transaction.

    Put the new Fernet key first (the old ones after it), run this, then remove the old keys.
    The previous signing key stays published at /.well-known/jwks.json, so tokens it signed
    keep verifying, for INSUREOPS_SIGNING_KEY_OVERLAP_SECONDS (default an hour); keys past
    their window are deleted.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from insureops.platform.auth.secret_keys import ConfigurationError, load_secret_keys
    from insureops.platform.cli.serve import _settings
    from insureops.platform.data.database import Database

    # Every model on Base.metadata: the tenant_databases row's foreign key names `workspaces`,
    # which SQLAlchemy could not resolve when only tenant_databases was imported (issue 15).
    from insureops.platform.migrations import env_models  # noqa: F401
    from insureops.platform.records.llm_keys import LlmKeySecretError, rotate_llm_keys
    from insureops.platform.records.signing_keys import SigningKeySecretError, rotate_signing_key
    from insureops.platform.tenancy.databases import (
        TenantDatabaseSecretError,
        rotate_tenant_database_keys,
    )
    from insureops.platform.webhooks.signing import WebhookSecretError, rotate_webhook_secrets

    settings = _settings(database_url=database_url)

    now = datetime.datetime.fromtimestamp(time.time(), datetime.UTC)  # the shell's clock
    overlap = datetime.timedelta(seconds=settings.signing_key_overlap_seconds)

    async def run() -> tuple:
        database = Database.connect(settings.database_url)
        try:
            fernet = load_secret_keys(settings).fernet
            async with database.unit_of_work() as uow:
                return (await rotate_tenant_database_keys(uow, fernet),
                        await rotate_llm_keys(uow, fernet),
                        await rotate_webhook_secrets(uow, fernet),
                        await rotate_signing_key(uow, fernet, now, overlap)
                        if signing_key else None)
        finally:
            await database.engine.dispose()

    try:
        ((rows, changed), (llm_rows, llm_changed), (hook_rows, hook_changed),
         rotation) = asyncio.run(run())
    except (ConfigurationError, TenantDatabaseSecretError, LlmKeySecretError,
            WebhookSecretError, SigningKeySecretError) as exc:
        raise click.ClickException(str(exc)) from None
    except SQLAlchemyError as exc:  # a message, not a trace
        raise click.ClickException(f"rotation failed: {type(exc).__name__}") from None
    click.echo(f"tenant database URLs: {rows} stored, {changed} re-encrypted with the newest key")
    click.echo(f"LLM provider keys: {llm_rows} stored, {llm_changed} re-encrypted with the "
               "newest key")
    click.echo(f"webhook signing secrets: {hook_rows} stored, {hook_changed} re-encrypted with "
               "the newest key")
    if rotation is not None:
        click.echo(f"signing keys: {rotation.kid} signs from now; {rotation.retired} previous "
                   f"key(s) published until {rotation.published_until:%Y-%m-%d %H:%M:%S} UTC; "
                   f"{rotation.deleted} expired key(s) deleted")
