"""The lines of business the market writes: ACORD codes with display names, in one table.

Old spellings a caller may still send (`CRIME` before the ACORD `CRIM`) are read through
`canonical_line`, which says what it changed so the caller can warn.

The same table joins the market's ACORD codes with a policy's `line_of_business` (the data
model's `lob` enum: property, auto, liability, ...): each code names the one policy line it is
written as (`policy_line_of`), and a policy line stands for every code written as it
(`lines_of_policy_line`), so either spelling is accepted where a line is asked for
(`lines_asked`, `policy_line_asked`; issue 33).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from insureops.schema.enums import ENUMS

POLICY_LINES: tuple[str, ...] = ENUMS["lob"]


@dataclass(frozen=True, slots=True)
class LineOfBusiness:
    """One line of business: its ACORD code, display name, a one-line description, and the
    policy `line_of_business` (data model `lob`) a policy of this line is recorded as."""

    code: str
    name: str
    description: str
    policy_line: str


LINES: tuple[LineOfBusiness, ...] = (
    LineOfBusiness("BOP", "Businessowners Policy",
                   "Property and general liability packaged for small and mid-sized businesses",
                   "property"),
    LineOfBusiness("CGL", "Commercial General Liability",
                   "Bodily injury, property damage, personal and advertising injury to others",
                   "liability"),
    LineOfBusiness("WORK", "Workers Compensation",
                   "Statutory benefits for employees' work injuries, with employers liability",
                   "workers_comp"),
    LineOfBusiness("AUTOB", "Business Auto",
                   "Liability and physical damage for owned, hired and non-owned vehicles",
                   "auto"),
    LineOfBusiness("GARAG", "Garage and Garagekeepers",
                   "Garage operations liability, and garagekeepers cover for customers' vehicles "
                   "in the business's care",
                   "auto"),
    LineOfBusiness("PROPC", "Commercial Property",
                   "Buildings, business personal property and business income",
                   "property"),
    LineOfBusiness("EO", "Professional Liability (E&O)",
                   "Errors and omissions in professional services, including medical professional",
                   "liability"),
    LineOfBusiness("CYBER", "Cyber Liability",
                   "Data breach response, network security and privacy liability, cyber extortion",
                   "cyber"),
    LineOfBusiness("UMBRC", "Commercial Umbrella",
                   "Excess limits over general liability, auto and employers liability",
                   "liability"),
    LineOfBusiness("LIQUR", "Liquor Liability",
                   "Injury or damage caused by an intoxicated person the business served or sold "
                   "alcohol to",
                   "liability"),
    LineOfBusiness("EPLI", "Employment Practices Liability",
                   "Claims of discrimination, harassment and wrongful termination by employees",
                   "liability"),
    LineOfBusiness("INMRC", "Inland Marine",
                   "Contractors equipment, tools, goods in transit and installation floaters",
                   "marine"),
    LineOfBusiness("DO", "Directors and Officers",
                   "Management liability of directors and officers of companies and nonprofits",
                   "liability"),
    LineOfBusiness("CRIM", "Commercial Crime",
                   "Employee theft, forgery, funds transfer and social engineering fraud",
                   "other"),
)

LINE_CODES: frozenset[str] = frozenset(line.code for line in LINES)

# Spellings callers used before, or that agents type, and the ACORD code each means.
LINE_ALIASES: dict[str, str] = {
    "CRIME": "CRIM", "GL": "CGL", "WC": "WORK", "AUTO": "AUTOB",
    "PROPERTY": "PROPC", "UMBRELLA": "UMBRC", "UMB": "UMBRC", "EXCESS": "UMBRC", "PL": "EO",
    "IM": "INMRC", "GARAGE": "GARAG", "GKLL": "GARAG", "LIQUOR": "LIQUR", "LL": "LIQUR",
    "D&O": "DO", "E&O": "EO", "DNO": "DO", "PROF": "EO", "PROFL": "EO", "MPL": "EO",
    "LIQ": "LIQUR", "PROP": "PROPC", "CFIRE": "PROPC", "CA": "AUTOB", "BAP": "AUTOB",
}

# Names agents write instead of codes ("general liability", "workers comp"), in upper case.
LINE_NAMES: dict[str, str] = {
    "GENERAL LIABILITY": "CGL", "COMMERCIAL GENERAL LIABILITY": "CGL", "LIABILITY": "CGL",
    "WORKERS COMPENSATION": "WORK", "WORKERS COMP": "WORK", "WORKERS' COMPENSATION": "WORK",
    "WORKMENS COMP": "WORK", "COMMERCIAL AUTO": "AUTOB", "BUSINESS AUTO": "AUTOB",
    "GARAGE LIABILITY": "GARAG", "GARAGEKEEPERS": "GARAG", "GARAGE KEEPERS": "GARAG",
    "COMMERCIAL PROPERTY": "PROPC", "PROFESSIONAL LIABILITY": "EO",
    "ERRORS AND OMISSIONS": "EO", "ERRORS & OMISSIONS": "EO", "MALPRACTICE": "EO",
    "MEDICAL MALPRACTICE": "EO", "CYBER LIABILITY": "CYBER", "COMMERCIAL UMBRELLA": "UMBRC",
    "EXCESS LIABILITY": "UMBRC", "LIQUOR LIABILITY": "LIQUR", "EMPLOYMENT PRACTICES": "EPLI",
    "EMPLOYMENT PRACTICES LIABILITY": "EPLI", "EPL": "EPLI", "INLAND MARINE": "INMRC",
    "DIRECTORS AND OFFICERS": "DO", "DIRECTORS & OFFICERS": "DO", "COMMERCIAL CRIME": "CRIM",
    "FIDELITY": "CRIM", "BUSINESSOWNERS": "BOP", "BUSINESSOWNERS POLICY": "BOP",
    "BUSINESS OWNERS POLICY": "BOP",
}

_BY_CODE = {line.code: line for line in LINES}


def line_by_code(code: str) -> LineOfBusiness | None:
    """The line with this code, or None when the market knows no such line."""
    return _BY_CODE.get(code)


def canonical_line(code: str) -> str | None:
    """The ACORD code `code` means (any case, known aliases and names), or None."""
    upper = " ".join(code.replace("_", " ").replace("-", " ").split()).upper()
    if upper in _BY_CODE:
        return upper
    return LINE_ALIASES.get(upper) or LINE_NAMES.get(upper) or LINE_NAMES.get(
        upper.removesuffix(" INSURANCE").removesuffix(" COVERAGE"))


_POLICY_LINE_CODES: dict[str, tuple[str, ...]] = {
    policy_line: tuple(line.code for line in LINES if line.policy_line == policy_line)
    for policy_line in POLICY_LINES}


def policy_line_of(code: str) -> str | None:
    """The policy `line_of_business` a line (ACORD code, alias or name) is recorded as: CGL and
    EO are `liability`, WORK is `workers_comp`; None for a value that names no line."""
    canonical = canonical_line(code)
    return _BY_CODE[canonical].policy_line if canonical is not None else None


def lines_of_policy_line(policy_line: str) -> tuple[str, ...]:
    """The ACORD codes recorded as this policy line (`liability`: CGL, EO, UMBRC, LIQUR, EPLI,
    DO), in the table's order; empty for a policy line the market writes no code for (`life`,
    `health`, `travel`) or a value that is not a policy line."""
    return _POLICY_LINE_CODES.get(policy_line, ())


def lines_asked(value: str) -> tuple[str, ...] | None:
    """The ACORD codes a caller asking for `value` means: a policy line (exact, any case) is
    all its codes; a code, alias or name is its one code; None when it is neither."""
    folded = value.strip().lower()
    if folded in _POLICY_LINE_CODES:
        return _POLICY_LINE_CODES[folded]
    code = canonical_line(value)
    return (code,) if code is not None else None


def expand_lines(values: Any) -> Any:
    """A requested list of lines with policy lines and spellings read as ACORD codes, in order,
    each once: the before-validator of a request's `lines` (a value naming no line is left for
    the field's own validation to refuse). Raises ValueError for a policy line the market
    writes nothing for, rather than matching nothing or everything."""
    if not isinstance(values, Iterable) or isinstance(values, str | bytes | dict):
        return values
    codes: list[Any] = []
    seen: set[str] = set()
    for value in values:
        found = lines_asked(value) if isinstance(value, str) else None
        if found == ():
            raise ValueError(f"{value.strip().lower()} is a policy line the market writes no "
                             "commercial line for")
        for code in found or (value,):  # a value that is not a string is the field's to refuse
            if isinstance(code, str) and code in seen:
                continue
            seen.update((code,) if isinstance(code, str) else ())
            codes.append(code)
    return codes


def policy_line_asked(value: Any) -> Any:
    """A policy `line_of_business` given either way: a policy line as it is, an ACORD code
    (exactly, as published: `CGL`) as the policy line it is recorded as (`liability`);
    anything else unchanged, for the field's validation to refuse."""
    if isinstance(value, str) and value in _BY_CODE:
        return _BY_CODE[value].policy_line
    return value
