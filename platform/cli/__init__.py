"""The `insureops` command: a click group whose subcommands are imported only when used.

Lazy loading keeps `insureops rules check` fast: the service, SQLAlchemy and aiohttp are not
imported unless a command needs them.
"""

from __future__ import annotations

import importlib

import click

# subcommand name -> ("module:attribute" of a click command or group, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("insureops.platform.cli.serve:serve", "Run the HTTP service."),
    "worker": ("insureops.platform.cli.worker:worker",
               "Run background jobs (PostgreSQL platform database)."),
    "migrate": ("insureops.platform.cli.serve:migrate", "Migrate the platform database."),
    "rules": ("insureops.platform.cli.rules:rules", "Check, test, simulate and diff rulesets."),
    "schema": ("insureops.platform.cli.schema:schema", "Prepare a tenant database; print DDL."),
    "rotate-keys": ("insureops.platform.cli.rotation:rotate_keys",
                    "Re-encrypt secrets at rest with the newest Fernet key."),
    "mcp": ("insureops.platform.cli.mcp:mcp", "Run the local MCP server; doctor; config."),
    "market": ("insureops.platform.cli.market:market",
               "Check or load a market folder of carriers, products and appetites."),
}


class LazyGroup(click.Group):
    """A group that imports each subcommand's module on first use."""

    def __init__(self, *args, lazy_subcommands: dict[str, tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = lazy_subcommands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            module_name, attribute = self.lazy_subcommands[cmd_name][0].split(":")
            return getattr(importlib.import_module(module_name), attribute)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List subcommands from the table, without importing them."""
        rows = [(name, self.lazy_subcommands[name][1]) for name in sorted(self.lazy_subcommands)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy_subcommands=SUBCOMMANDS)
@click.version_option(package_name="insureops")
def main() -> None:
    """insureops: rules, carriers and policies for insurance operations."""
