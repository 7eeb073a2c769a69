"""`insureops classify`: a business description to ranked NAICS 2022 codes, offline.

The same classifier as `POST /api/v1/carrier_finder/classify/` without a workspace LLM key
(carrier_matching/classifier.py); `--json` prints that route's response shape.
"""

from __future__ import annotations

import sys

import click

MAX_DESCRIPTION_CHARS = 10_000  # the route's bound on `description`


@click.command("classify")
@click.argument("description")
@click.option("--name", default=None, help="The business's name (often names the trade).")
@click.option("--website", default=None, help="The business's website address (only its "
              "host name is read; nothing is fetched).")
@click.option("--limit", type=click.IntRange(1, 5), default=5, show_default=True,
              help="Most codes to show.")
@click.option("--json", "as_json", is_flag=True, help="Print the classify route's JSON.")
def classify(description: str, name: str | None, website: str | None, limit: int,
             as_json: bool) -> None:
    """Classify a business DESCRIPTION (`-` reads it from stdin) into NAICS 2022 codes.

    Exit status 1 when no code fits (the text names no known trade).
    """
    from insureops.carrier_matching.classifier import METHOD
    from insureops.carrier_matching.classifier import classify as classify_text
    from insureops.engine.inputs import jsonio

    if description == "-":
        description = sys.stdin.read(MAX_DESCRIPTION_CHARS + 1)
    if not description.strip() or len(description) > MAX_DESCRIPTION_CHARS:
        raise click.BadParameter(f"give 1 to {MAX_DESCRIPTION_CHARS:,} characters",
                                 param_hint="DESCRIPTION")
    results = classify_text(description, name=name, website=website, limit=limit)
    if as_json:
        click.echo(jsonio.dumps({"results": [{"naics": r.naics, "title": r.title,
                                              "confidence": r.confidence} for r in results],
                                 "method": METHOD, "fallback_reason": None, "provider": None}))
    else:
        for result in results:
            click.echo(f"{result.naics}  {result.confidence:.2f}  {result.title}")
    if not results:
        click.echo("no NAICS code fits: describe what the business does (its trade, products "
                   "or services)", err=True)
        sys.exit(1)
