"""`insureops rules fmt` (the canonical printer, dsl/formatter.py) and `insureops rules lsp`
(the language server, language_server.py): the rule author's editor tools.

`fmt` rewrites files in place, or with `--check` only lists those that are not formatted
(exit 1: for CI); a folder means every `.rules` file under it; `-` reads stdin and writes
stdout. A file with syntax errors is reported and left as it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click


def _rules_files(paths: tuple[str, ...]) -> list[Path]:
    found: list[Path] = []
    for path in map(Path, paths):
        found += sorted(path.rglob("*.rules")) if path.is_dir() else [path]
    return found


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--check", is_flag=True,
              help="Change nothing; list the files that are not formatted and exit 1 if any.")
def fmt(paths: tuple[str, ...], check: bool) -> None:
    """Format .rules files with the canonical printer (comments kept)."""
    from insureops.dsl.errors import DslError
    from insureops.dsl.formatter import UnformattableError, format_source

    if paths == ("-",):
        source = sys.stdin.read()
        try:
            formatted = format_source(source)
        except UnformattableError as exc:
            click.echo(f"error: <stdin>: {exc}", err=True)
            sys.exit(1)
        if check:
            sys.exit(0 if formatted == source else 1)
        sys.stdout.write(formatted)
        return
    failed = unformatted = 0
    for path in _rules_files(paths):
        try:
            source = path.read_text(encoding="utf-8")
            formatted = format_source(source)
        except (OSError, UnicodeDecodeError) as exc:
            click.echo(f"error: cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                       err=True)
            failed += 1
            continue
        except DslError as exc:
            click.echo(f"error: {path}: {exc}", err=True)
            failed += 1
            continue
        if formatted == source:
            continue
        unformatted += 1
        if check:
            click.echo(f"would reformat {path}")
        else:
            path.write_text(formatted, encoding="utf-8")
            click.echo(f"reformatted {path}")
    if failed or (check and unformatted):
        sys.exit(1)


@click.command()
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the only transport; "
              "accepted because editors pass it).")
def lsp(stdio: bool) -> None:
    """Run the language server of .rules files over stdio (for editors)."""
    from insureops.platform.cli.language_server import serve_stdio

    serve_stdio()
