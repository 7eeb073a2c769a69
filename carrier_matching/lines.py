"""The lines of business the market writes: ACORD-style codes with display names, in one table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LineOfBusiness:
    """One line of business: its ACORD-style code, display name and a one-line description."""

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
    LineOfBusiness("PROPC", "Commercial Property",
                   "Buildings, business personal property and business income"),
    LineOfBusiness("EO", "Professional Liability (E&O)",
                   "Errors and omissions in professional services, including medical professional"),
    LineOfBusiness("CYBER", "Cyber Liability",
                   "Data breach response, network security and privacy liability, cyber extortion"),
    LineOfBusiness("UMBRC", "Commercial Umbrella",
                   "Excess limits over general liability, auto and employers liability"),
    LineOfBusiness("EPLI", "Employment Practices Liability",
                   "Claims of discrimination, harassment and wrongful termination by employees"),
    LineOfBusiness("INMRC", "Inland Marine",
                   "Contractors equipment, tools, goods in transit and installation floaters"),
    LineOfBusiness("DO", "Directors and Officers",
                   "Management liability of directors and officers of companies and nonprofits"),
    LineOfBusiness("CRIME", "Commercial Crime",
                   "Employee theft, forgery, funds transfer and social engineering fraud"),
)

LINE_CODES: frozenset[str] = frozenset(line.code for line in LINES)

_BY_CODE = {line.code: line for line in LINES}


def line_by_code(code: str) -> LineOfBusiness | None:
    """The line with this code, or None when the market knows no such line."""
    return _BY_CODE.get(code)
