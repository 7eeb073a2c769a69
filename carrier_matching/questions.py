"""The questions real applications ask, by the Business field that answers each: the one
registry that appetites' "ask the client" reasons and the match result's question list share.

An appetite asks by tagging its result `ask:<field>` with a reason that starts with "Ask the
client: "; the matcher turns the tags into `Question`s (field, text, and the products that
asked), so a broker sees one list of what to find out, not the same question per product.
"""

from __future__ import annotations

from dataclasses import dataclass

ASK_TAG_PREFIX = "ask:"
ASK_REASON_PREFIX = "Ask the client: "


@dataclass(frozen=True, slots=True)
class Question:
    """A question for the client: the Business field that answers it and the words to ask it."""

    field: str
    text: str


QUESTIONS: dict[str, Question] = {q.field: q for q in (
    Question("naics", "what does the business do (its NAICS class)?"),
    Question("state", "which state is the business in?"),
    Question("annual_revenue", "what are the annual revenues (gross sales)?"),
    Question("payroll", "what is the annual payroll?"),
    Question("employee_count", "how many employees are there?"),
    Question("years_in_business", "how many years has the business operated (under this owner)?"),
    Question("prior_claims", "what do the loss runs show for the last five years?"),
    Question("operations.liquor_sales_percent", "what share of sales is alcohol?"),
    Question("operations.open_past_midnight", "is it open past midnight?"),
    Question("operations.live_entertainment", "is there live entertainment, a DJ or dancing?"),
    Question("operations.subcontracted_percent", "what share of the work is subcontracted?"),
    Question("operations.residential_percent", "what share of the work is residential?"),
    Question("operations.max_stories", "what is the tallest building worked on (stories)?"),
    Question("fleet.power_units", "how many power units (trucks and tractors) are on the road?"),
    Question("fleet.radius_miles", "what is the furthest regular radius of operation, in miles?"),
    Question("fleet.hazmat", "does it haul hazardous materials (placarded loads)?"),
    Question("fleet.dot_number", "what is the USDOT number?"),
    Question("property.construction", "what is the building's construction (frame, joisted "
             "masonry, non-combustible, masonry non-combustible, fire resistive)?"),
    Question("property.year_built", "what year was the building built?"),
    Question("property.roof_age", "how old is the roof, in years?"),
    Question("property.protection_class", "what is the ISO public protection class (1 to 10)?"),
    Question("property.sprinklered", "is the building fully sprinklered?"),
    Question("cyber.records", "how many personal, health or card records does it hold?"),
    Question("cyber.mfa", "is multi-factor authentication on for e-mail, remote access and "
             "admin accounts?"),
    Question("cyber.backups", "are backups kept offline or immutable, and tested?"),
    Question("payroll_by_class", "what is the payroll by workers compensation class code?"),
)}


def question(field: str) -> Question:
    """The registered question for `field`, or a plain one naming the field."""
    return QUESTIONS.get(field) or Question(field, f"what is the business's {field}?")


def asked_fields(tags: tuple[str, ...] | list[str]) -> list[str]:
    """The Business fields an appetite's tags ask about, in tag order."""
    return [tag[len(ASK_TAG_PREFIX):] for tag in tags if tag.startswith(ASK_TAG_PREFIX)]
