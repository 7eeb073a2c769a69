"""`insureops schema`: prepare a tenant database (`apply`); print the data model's DDL (`ddl`)."""

from __future__ import annotations

import click


@click.group()
def schema() -> None:
    """Tenant databases: data model 2.2.0."""


@schema.command()
@click.argument("database_url")
def apply(database_url: str) -> None:
    """Prepare the tenant database at DATABASE_URL (postgresql://..., sqlite:///PATH).

    Creates the tables, constraints and triggers of data model 2.2.0 and records the version;
    safe to run again; refuses a database holding a newer or unknown data-model version.
    """
    import sqlalchemy as sa

    from insureops.platform.tenancy.data_model import apply_data_model
    from insureops.platform.tenancy.engine import create_tenant_engine
    from insureops.schema.errors import DataModelVersionError

    try:
        engine = create_tenant_engine(database_url)
    except (ValueError, sa.exc.ArgumentError) as exc:
        raise click.ClickException(f"invalid database URL: {exc}") from None
    shown = engine.url.render_as_string(hide_password=True)
    try:
        result = apply_data_model(engine)
    except DataModelVersionError as exc:
        raise click.ClickException(f"{shown}: {exc.message}") from None
    except sa.exc.SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise click.ClickException(f"{shown}: cannot prepare the database: {reason}") from None
    finally:
        engine.dispose()
    click.echo(f"{shown}: {result.describe()}")


@schema.command()
@click.option("--dialect", type=click.Choice(["postgresql", "sqlite"]), required=True,
              help="The SQL dialect to print.")
def ddl(dialect: str) -> None:
    """Print the DDL of data model 2.2.0 (tables, indexes, triggers, version row)."""
    from insureops.schema.sql.ddl import render_ddl

    click.echo(render_ddl(dialect), nl=False)


@schema.command()
def docs() -> None:
    """Print docs/data-model.md (tables, enumerations, state machines) generated from the code."""
    from insureops.schema.reference import render_reference

    click.echo(render_reference(), nl=False)
