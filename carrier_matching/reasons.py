"""Reasons as a broker reads them: money written as money, the reason that decided first, and
the "ask the client" lines taken out as questions.

The engine returns reasons in firing order as plain text. Each comes from one action of a fired
rule, so the ruleset's rules say which decision (or none) each reason carries; that is how the
reason that declined is put before the refer-style ones that fired earlier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from insureops.carrier_matching.questions import ASK_REASON_PREFIX
from insureops.engine import ir

# `$` and a plain number, as an appetite writes money (`${business.annual_revenue}`)
_MONEY = re.compile(r"\$(-?\d+(?:\.\d+)?)(?![\d,])")
REASON = "reason"


def format_money(text: str) -> str:
    """`text` with each `$` + plain number written as dollars: "$1000000.0" -> "$1,000,000"."""
    if "$" not in text:
        return text
    # split rather than sub: the numbers are the odd parts, no callback per match
    parts = _MONEY.split(text)
    for at in range(1, len(parts), 2):
        number = parts[at]
        parts[at] = f"${int(number):,}" if "." not in number else _dollars(number)
    return "".join(parts)


def _dollars(number: str) -> str:
    try:
        amount = Decimal(number)
    except InvalidOperation:
        return "$" + number
    if amount == amount.to_integral_value():
        return f"${int(amount):,}"
    return f"${amount:,.2f}"


def reason_kinds(ruleset: ir.Ruleset, fired: Sequence[str], count: int) -> list[str]:
    """For each of `count` reasons, the decision its action carries (`accept`, `refer`,
    `decline`) or `reason`; all `reason` when the fired rules do not account for them."""
    rules = rule_kinds(ruleset)
    kinds: list[str] = []
    for name in fired:
        kinds.extend(rules.get(name, ()))
    return kinds if len(kinds) == count else [REASON] * count


_KINDS: dict[int, tuple[ir.Ruleset, dict[str, tuple[str, ...]]]] = {}


def rule_kinds(ruleset: ir.Ruleset) -> dict[str, tuple[str, ...]]:
    """Rule name -> the kinds of the reasons its actions give, made once per ruleset (a match
    reads it for every product's answer); the ruleset is kept so its id stays its own."""
    found = _KINDS.get(id(ruleset))
    if found is not None and found[0] is ruleset:
        return found[1]
    kinds = {item.name: tuple(action.decision if isinstance(action, ir.DecisionAction)
                              else REASON for action in item.actions
                              if isinstance(action, (ir.DecisionAction, ir.ReasonAction)))
             for item in ruleset.items if isinstance(item, ir.Rule)}
    if len(_KINDS) < 4096:
        _KINDS[id(ruleset)] = (ruleset, kinds)
    return kinds


def arrange(decision: str, reasons: Sequence[str],
            kinds: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The reasons with the deciding ones first (then the other decisions by severity, then
    plain reasons), money formatted; and, apart, the "ask the client" lines."""
    order = {decision: 0, "decline": 1, "refer": 2, "accept": 3, REASON: 4}
    asks, kept = [], []
    position = 0
    for text, kind in zip(reasons, kinds):
        if "$" in text:
            text = format_money(text)
        if text.startswith(ASK_REASON_PREFIX):
            asks.append(text)
        else:
            kept.append((order.get(kind, 4), position, text))
        position += 1
    kept.sort()
    return tuple([text for _, _, text in kept]), tuple(asks)
