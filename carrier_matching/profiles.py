"""The agent-facing parts of a manifest, read and checked: the carrier's type, access path,
territories with their underwriters, where submissions go and the guide's dates; a product's
appetite strength and access; and the market's wholesalers and MGAs (`intermediaries.toml`)."""

from __future__ import annotations

import tomllib

from insureops.carrier_matching.market import (
    ACCESS_PATHS,
    CARRIER_TYPES,
    Access,
    CarrierProfile,
    Intermediary,
    Problem,
    Territory,
)
from insureops.carrier_matching.toml_tables import (
    SLUG,
    Locator,
    TableReader,
    toml_message,
    toml_position,
)

INTERMEDIARIES_NAME = "intermediaries.toml"
TERRITORY_FIELDS = ("name", "states", "underwriter", "email", "phone")
INTERMEDIARY_FIELDS = ("id", "name", "kind", "states", "contact", "email", "phone", "portal")
INTERMEDIARY_KINDS = ("wholesaler", "mga")


def parse_access(reader: TableReader, *, required: bool) -> Access | None:
    """`access` ("direct", "wholesaler" or "mga") and, unless direct, `via` (an intermediary)."""
    path = reader.choice("access", ACCESS_PATHS, required=required)
    via = reader.text("via", required=False)
    if via is not None and not SLUG.match(via):
        reader.problem("via", "invalid_field", f"`{reader.field_name('via')}` must be the id of "
                       f"a wholesaler or MGA in {INTERMEDIARIES_NAME}")
        return None
    if path is None:
        if via is not None:
            reader.problem("via", "invalid_field", f"`{reader.field_name('via')}` needs "
                           "`access` = \"wholesaler\" or \"mga\"")
        return None
    if path == "direct" and via is not None:
        reader.problem("via", "invalid_field", "a direct appointment goes through no one: drop "
                       f"`{reader.field_name('via')}`")
        return None
    if path != "direct" and via is None:
        reader.problem("access", "missing_field", f"`{reader.field_name('access')}` \"{path}\" "
                       f"needs `via`: the {path}'s id in {INTERMEDIARIES_NAME}")
        return None
    return Access(path, via)  # type: ignore[arg-type]


def parse_carrier_profile(reader: TableReader, territories: list[TableReader],
                          states: frozenset[str] | None, market: str | None) -> CarrierProfile | None:
    """The carrier's profile from its `[carrier]` table and `[[territories]]` tables; the
    territories must cover the carrier's states, each state once."""
    count = len(reader.problems)
    kind = reader.choice("type", CARRIER_TYPES)
    if kind is not None and market is not None and \
            (kind == "excess_and_surplus") != (market == "surplus_lines"):
        reader.problem("type", "invalid_field", "`carrier.type` \"excess_and_surplus\" goes with "
                       "`market` \"surplus_lines\", and only with it")
    access = parse_access(reader, required=True)
    email = reader.email("submission_email")
    portal = reader.link("submission_portal")
    if email is None and portal is None and "submission_email" not in reader.data \
            and "submission_portal" not in reader.data:
        reader.problem(None, "missing_field", "a carrier needs `submission_email` or "
                       "`submission_portal`: where agents send submissions")
    quote_url = reader.link("quote_url")
    effective, reviewed = reader.day("guide_effective"), reader.day("guide_reviewed")
    if effective is not None and reviewed is not None and reviewed < effective:
        reader.problem("guide_reviewed", "invalid_field",
                       "`carrier.guide_reviewed` is before `carrier.guide_effective`")
    found = _territories(reader, territories, states)
    if len(reader.problems) > count or kind is None or access is None or found is None \
            or effective is None or reviewed is None:
        return None
    return CarrierProfile(kind, access, found, email, portal, quote_url,  # type: ignore[arg-type]
                          effective, reviewed)


def _territories(reader: TableReader, tables: list[TableReader],
                 states: frozenset[str] | None) -> tuple[Territory, ...] | None:
    if not tables:
        reader.problem(None, "missing_field", "a carrier needs at least one `[[territories]]` "
                       "table: its states and the underwriter for them")
        return None
    found: list[Territory] = []
    seen: dict[str, str] = {}
    for table in tables:
        table.unknown_fields(TERRITORY_FIELDS)
        count = len(table.problems)
        name, underwriter = table.text("name"), table.text("underwriter")
        email, phone = table.email("email", required=True), table.text("phone", required=False)
        covered = table.states("states", None)
        if covered is not None and states is not None and not covered <= states:
            table.problem("states", "invalid_field", f"`{table.field_name('states')}` names "
                          f"states the carrier does not write in: {', '.join(sorted(covered - states))}")
        for state in sorted(covered or ()):
            if state in seen:
                table.problem("states", "invalid_field", f"{state} is in territories "
                              f"\"{seen[state]}\" and \"{name}\": one underwriter a state")
            seen.setdefault(state, name or "")
        if len(table.problems) == count and covered is not None:
            found.append(Territory(name, covered, underwriter, email, phone))  # type: ignore[arg-type]
    if states is not None and len(found) == len(tables):
        missing = sorted(states - set(seen))
        if missing:
            reader.problem(None, "missing_field", "no territory covers "
                           f"{', '.join(missing)}: every state the carrier writes needs an "
                           "underwriter")
            return None
    return tuple(found) if len(found) == len(tables) else None


def parse_intermediaries(path: str, text: str) -> tuple[list[Intermediary], list[Problem]]:
    """The wholesalers and MGAs an `intermediaries.toml` lists (`[[intermediaries]]` tables)."""
    problems: list[Problem] = []
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = toml_position(str(exc))
        return [], [Problem(path, line, column, "manifest_syntax",
                            f"not valid TOML: {toml_message(str(exc))}")]
    locator = Locator(text)
    top = TableReader(path, locator, "", document, problems)
    top.unknown_fields(("intermediaries",))
    found: list[Intermediary] = []
    ids: set[str] = set()
    for index, data in enumerate(document.get("intermediaries") or []):
        reader = TableReader(path, locator, f"intermediaries[{index}]", data, problems)
        reader.unknown_fields(INTERMEDIARY_FIELDS)
        count = len(problems)
        ident, name = reader.text("id"), reader.text("name")
        if ident is not None and not SLUG.match(ident):
            reader.problem("id", "invalid_field", "an intermediary's id is lowercase words joined by -")
        elif ident in ids:
            reader.problem("id", "duplicate_id", f"intermediary id \"{ident}\" is used twice")
        kind = reader.choice("kind", INTERMEDIARY_KINDS)
        states = reader.states("states", None)
        contact, email = reader.text("contact"), reader.email("email", required=True)
        phone, portal = reader.text("phone", required=False), reader.link("portal")
        if len(problems) == count and states is not None:
            ids.add(ident)  # type: ignore[arg-type]
            found.append(Intermediary(ident, name, kind, states, contact, email,  # type: ignore[arg-type]
                                      phone, portal))
    return found, problems
