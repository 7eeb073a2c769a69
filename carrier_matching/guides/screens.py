"""Shared hazard screens: one list of classes and operations that a product naming the screen
declines, written into each such appetite (the umbrella screens of every umbrella product)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Screen:
    """Classes (exact codes), class groups (prefixes) and phrases a product declines."""

    title: str
    reason: str
    classes: tuple[tuple[str, str], ...]
    groups: tuple[tuple[str, str], ...]
    phrases: tuple[str, ...]


SCREENS: dict[str, Screen] = {
    "umbrella": Screen(
        "Umbrella hazard screen",
        "Umbrella hazard screen: {what} is outside what an umbrella over others' primary "
        "policies writes",
        classes=(("325920", "Explosives manufacturing"),
                 ("332992", "Small arms ammunition manufacturing"),
                 ("332993", "Ammunition manufacturing"),
                 ("332994", "Small arms and ordnance manufacturing"),
                 ("713110", "Amusement and theme parks"),
                 ("562211", "Hazardous waste treatment and disposal"),
                 ("562910", "Remediation services"),
                 ("481211", "Nonscheduled chartered passenger air transportation"),
                 ("481219", "Other nonscheduled air transportation"),
                 ("487210", "Scenic and sightseeing transportation, water"),
                 ("722410", "Drinking places (bars, taverns, nightclubs)"),
                 ("238910", "Site preparation and demolition contractors")),
        groups=(("2111", "Oil and gas extraction"), ("2131", "Support activities for mining"),
                ("4811", "Scheduled and chartered air transportation")),
        phrases=("fireworks", "pyrotechnic", "explosive", "blasting", "implosion", "demolition",
                 "dispensary", "cannabis", "marijuana", "thc", "firearm", "ammunition",
                 "gun range", "shooting range", "asbestos", "lead abatement",
                 "mold remediation", "hazardous waste", "trampoline", "amusement ride",
                 "bungee", "skydiving", "nightclub", "aircraft", "aviation", "fracking",
                 "crane rental", "tower erection", "armed guard", "armed security"),
    ),
}
