"""Regulatory facts every appetite obeys, as data: where private carriers may not write workers
compensation, which lines the surplus lines market may not write, and what a surplus lines
placement asks of the agent.

The matcher applies them before any appetite runs (so a workspace's own appetite obeys them too)
and `market check` refuses a manifest that offers what they forbid.
"""

from __future__ import annotations

from dataclasses import dataclass

from insureops.carrier_matching.jurisdictions import STATES

WORKERS_COMP = "WORK"
REGULATORY_TAG = "regulatory"


@dataclass(frozen=True, slots=True)
class StateFund:
    """A monopolistic state's workers compensation fund: only it may write comp there."""

    state: str
    fund: str


# Workers compensation is written only by the state fund here; private carriers may add
# employers liability ("stop gap") to a general liability policy instead.
MONOPOLISTIC_COMP: dict[str, StateFund] = {
    "ND": StateFund("ND", "North Dakota Workforce Safety and Insurance (WSI)"),
    "OH": StateFund("OH", "the Ohio Bureau of Workers' Compensation"),
    "WA": StateFund("WA", "the Washington Department of Labor and Industries"),
    "WY": StateFund("WY", "the Wyoming Department of Workforce Services, Workers' Compensation "
                    "Division"),
}
MONOPOLISTIC_COMP_STATES: frozenset[str] = frozenset(MONOPOLISTIC_COMP)

# Lines the surplus lines (non-admitted) market may not write: statutory workers compensation
# must come from an admitted carrier, a state fund or self-insurance.
SURPLUS_LINES_INELIGIBLE: frozenset[str] = frozenset({WORKERS_COMP})

DILIGENT_SEARCH_NOTE = (
    "Surplus lines placement: document a diligent search of the admitted market first (most "
    "states ask for declinations from admitted insurers that write the class), place it through "
    "a licensed surplus lines broker, and add the home state's surplus lines tax and stamping "
    "fee; there is no state guaranty fund behind it.")


def comp_forbidden(line: str, state: str | None) -> str | None:
    """Why a private carrier may not write `line` in `state`, or None when it may."""
    if line != WORKERS_COMP or state not in MONOPOLISTIC_COMP:
        return None
    name = STATES[state]
    return (f"{name} is a monopolistic workers compensation state: comp is written only by "
            f"{MONOPOLISTIC_COMP[state].fund}; ask a general liability carrier for stop-gap "
            "employers liability")


def surplus_lines_forbidden(line: str, admitted: bool) -> str | None:
    """Why a non-admitted product may not write `line`, or None when it may."""
    if admitted or line not in SURPLUS_LINES_INELIGIBLE:
        return None
    return ("Workers compensation cannot be placed in the surplus lines market: it needs an "
            "admitted carrier, a state fund or self-insurance")


def regulatory_decline(line: str, admitted: bool, state: str | None) -> str | None:
    """The first regulatory reason a product on `line` cannot be written in `state`."""
    return surplus_lines_forbidden(line, admitted) or comp_forbidden(line, state)
