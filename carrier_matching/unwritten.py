"""The lines a broker asked for that no product accepts or refers, and why: each line's declines
grouped by reason (product names, class lists and states folded into one wording), commonest
first, so a report whose best N hold nothing on a line still says who said no and for what."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from insureops.carrier_matching.lines import canonical_line, line_by_code
from insureops.carrier_matching.matching import STATE_TAG, MatchReport, requested_lines

_LISTS = re.compile(r"\s*\([^()]*\)")  # "(238*, 3*, not 325920, ...)", "(NAICS 811111)"


@dataclass(frozen=True, slots=True)
class UnwrittenLine:
    """A line asked for with no accept or refer: how many products declined it and their
    reasons grouped, `(reason, count)` commonest first."""

    line: str
    line_name: str
    declined: int
    reasons: tuple[tuple[str, int], ...]


def asked_lines(business: Mapping, lines: Iterable[str] | None = None) -> list[str]:
    """The ACORD codes the business asks for (as matching chooses them); empty for every line."""
    chosen = requested_lines(business, lines) or []
    codes = (canonical_line(line) for line in chosen if isinstance(line, str))
    return list(dict.fromkeys(code for code in codes if code))


def unwritten_lines(asked: Iterable[str], listed: MatchReport, declines: MatchReport,
                    top: int = 3) -> tuple[UnwrittenLine, ...]:
    """The lines of `asked` that `listed` (the accepts and refers shown) has nothing on and no
    product of `declines` (a match of those lines listing every answer) accepts or refers,
    with their decline reasons grouped."""
    written = {result.product.line for result in listed.results}
    out = []
    for line in asked:
        if line in written:
            continue
        answers = [r for r in declines.results if r.product.line == line]
        if any(r.decision != "decline" for r in answers):
            continue  # written, only beyond the best N shown
        grouped = Counter(_reason_kind(r.reasons[0] if r.reasons else "no reason given",
                                       r.tags) for r in answers)
        known = line_by_code(line)
        out.append(UnwrittenLine(line, known.name if known else line, len(answers),
                                 tuple(grouped.most_common(top))))
    return tuple(out)


def _reason_kind(reason: str, tags: Iterable[str]) -> str:
    if STATE_TAG in tags and " is not offered in " in reason:
        return "not offered in " + reason.rsplit(" is not offered in ", 1)[1]
    return _LISTS.sub("", reason)


def render_unwritten(found: Iterable[UnwrittenLine]) -> str:
    """The lines as text: one heading per line, its grouped reasons below."""
    out = []
    for item in found:
        if not item.declined:
            out.append(f"No product in the market writes {item.line_name} ({item.line}).")
            continue
        out.append(f"No product accepts or refers {item.line_name} ({item.line}): "
                   f"{item.declined} declined; the commonest reasons:")
        out += [f"  {count} x {reason}" for reason, count in item.reasons]
    return "".join(f"{line}\n" for line in out)
