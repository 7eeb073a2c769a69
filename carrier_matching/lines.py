"""The lines of business the market writes: ACORD codes with display names, in one table.

Old spellings a caller may still send (`CRIME` before the ACORD `CRIM`) are read through
`canonical_line`, which says what it changed so the caller can warn.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LineOfBusiness:
    """One line of business: its ACORD code, display name and a one-line description."""

    code: str
    name: str
    description: str


LINES: tuple[LineOfBusiness, ...] = (
    LineOfBusiness("BOP", "Businessowners Policy",
                   "Property and general liability packaged for small and mid-sized businesses"),
    LineOfBusiness("CGL", "Commercial General Liability",
                   "Bodily injury, property damage, personal and advertising injury to others"),
    LineOfBusiness("WORK", "Workers Compensation",
                   "Statutory benefits for employees' work injuries, with employers liability"),
    LineOfBusiness("AUTOB", "Business Auto",
                   "Liability and physical damage for owned, hired and non-owned vehicles"),
    LineOfBusiness("GARAG", "Garage and Garagekeepers",
                   "Garage operations liability, and garagekeepers cover for customers' vehicles "
                   "in the business's care"),
    LineOfBusiness("PROPC", "Commercial Property",
                   "Buildings, business personal property and business income"),
    LineOfBusiness("EO", "Professional Liability (E&O)",
                   "Errors and omissions in professional services, including medical professional"),
    LineOfBusiness("CYBER", "Cyber Liability",
                   "Data breach response, network security and privacy liability, cyber extortion"),
    LineOfBusiness("UMBRC", "Commercial Umbrella",
                   "Excess limits over general liability, auto and employers liability"),
    LineOfBusiness("LIQUR", "Liquor Liability",
                   "Injury or damage caused by an intoxicated person the business served or sold "
                   "alcohol to"),
    LineOfBusiness("EPLI", "Employment Practices Liability",
                   "Claims of discrimination, harassment and wrongful termination by employees"),
    LineOfBusiness("INMRC", "Inland Marine",
                   "Contractors equipment, tools, goods in transit and installation floaters"),
    LineOfBusiness("DO", "Directors and Officers",
                   "Management liability of directors and officers of companies and nonprofits"),
    LineOfBusiness("CRIM", "Commercial Crime",
                   "Employee theft, forgery, funds transfer and social engineering fraud"),
)

LINE_CODES: frozenset[str] = frozenset(line.code for line in LINES)

# Spellings callers used before, or that agents type, and the ACORD code each means.
LINE_ALIASES: dict[str, str] = {
    "CRIME": "CRIM", "GL": "CGL", "WC": "WORK", "AUTO": "AUTOB",
    "PROPERTY": "PROPC", "UMBRELLA": "UMBRC", "UMB": "UMBRC", "EXCESS": "UMBRC", "PL": "EO",
    "IM": "INMRC", "GARAGE": "GARAG", "GKLL": "GARAG", "LIQUOR": "LIQUR", "LL": "LIQUR",
    "D&O": "DO", "E&O": "EO",
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
