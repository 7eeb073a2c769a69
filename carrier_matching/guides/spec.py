"""A guide read into one `ProductSpec` per product: the product's program with the product's own
settings laid over it, every key checked."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from insureops.carrier_matching import naics_reference

GUIDE_NAME = "guide.toml"
BANDS = ("revenue", "payroll", "employees", "years", "units")
TOPICS = ("property", "fleet", "liquor", "cyber", "contractor", "comp")
SETTINGS = ("title", "summary", "default", "outside", "states", "excluded_states", "core",
            "groups", "referral", "excluded", "excluded_groups", *BANDS, "losses", "authority",
            "operations", *TOPICS, "screens", "rules", "sample", "tests", "program")
BAND_KEYS = ("below", "min", "core", "max", "above", "points")
LOSS_KEYS = ("lookback", "max_claims", "max_incurred", "large", "points", "headroom",
             "require_runs")
OPERATION_KEYS = ("name", "title", "phrases", "decision", "reason", "tag")


class GuideError(ValueError):
    """A guide that cannot be written: the message names the file and the key."""


@dataclass(frozen=True)
class Band:
    """A numeric band: values below `below` decline, between `below` and `min` refer, the
    `core` range scores most, up to `max` is written, up to `above` refers, beyond declines."""

    below: Decimal | None
    min: Decimal | None
    core: tuple[Decimal, ...]
    max: Decimal | None
    above: Decimal | None
    points: tuple[int, int]


@dataclass(frozen=True)
class Losses:
    lookback: int
    max_claims: int
    max_incurred: Decimal
    large: Decimal | None
    points: tuple[int, int, int]
    headroom: tuple[Decimal, Decimal]
    require_runs: bool


@dataclass(frozen=True)
class Operation:
    """An operation read from the description: its phrases, the decision and the reason."""

    name: str
    title: str
    phrases: tuple[str, ...]
    decision: str
    reason: str
    tag: str


@dataclass(frozen=True)
class ProductSpec:
    """Everything one product's appetite is written from."""

    carrier_id: str
    carrier: str                # the short name reasons use
    product_id: str
    product_name: str
    line: str
    version: int
    title: str
    summary: str
    default: str
    outside: str
    states: tuple[str, ...]     # where the product is offered (the manifest's)
    all_states: bool
    excluded_states: tuple[str, ...]
    core: tuple[tuple[str, int, str], ...]
    groups: tuple[tuple[str, int, str], ...]
    referral: tuple[tuple[str, int, str], ...]
    excluded: tuple[tuple[str, str], ...]
    excluded_groups: tuple[tuple[str, str], ...]
    bands: dict[str, Band]
    losses: Losses | None
    max_limit: Decimal
    authority: Decimal | None
    operations: tuple[Operation, ...]
    topics: dict[str, dict[str, Any]]
    screens: tuple[str, ...]
    rules: str
    sample: dict[str, Any]
    tests: str
    manifest: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def ruleset_name(self) -> str:
        return f"appetite.{self.carrier_id.replace('-', '_')}.{self.product_id.replace('-', '_')}"

    @property
    def file_name(self) -> str:
        return f"{self.product_id}.rules"


def read_guide(path: str, text: str, manifest: dict[str, Any],
               all_state_codes: frozenset[str]) -> list[ProductSpec]:
    """One spec per product of `manifest` (the parsed carrier.toml), from the guide's text."""
    try:
        guide = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GuideError(f"{path}: not valid TOML: {exc}") from None
    head = guide.get("guide") or {}
    programs = guide.get("programs") or {}
    products = guide.get("products") or {}
    carrier = manifest["carrier"]
    specs = []
    for product in manifest.get("products", []):
        own = products.get(product["id"])
        if own is None:
            raise GuideError(f"{path}: product `{product['id']}` has no [products.{product['id']}]")
        program_name = own.get("program")
        program = programs.get(program_name) if program_name else {}
        if program is None:
            raise GuideError(f"{path}: product `{product['id']}` names unknown program "
                             f"`{program_name}`")
        merged = {**program, **own}
        unknown = sorted(set(merged) - set(SETTINGS))
        if unknown:
            raise GuideError(f"{path}: [products.{product['id']}]: unknown key(s) {unknown}")
        specs.append(_spec(path, head, carrier, product, merged, all_state_codes))
    extra = sorted(set(products) - {p["id"] for p in manifest.get("products", [])})
    if extra:
        raise GuideError(f"{path}: guide products not in the manifest: {extra}")
    return specs


def _spec(path: str, head: dict, carrier: dict, product: dict, data: dict,
          all_state_codes: frozenset[str]) -> ProductSpec:
    where = f"{path}: [products.{product['id']}]"
    states_value = product.get("states", carrier["states"])
    states = tuple(sorted(all_state_codes if states_value == "all" else states_value))
    default = data.get("default", "decline")
    bands = {name: _band(where, name, data[name]) for name in BANDS if data.get(name)}
    losses = _losses(where, data["losses"]) if data.get("losses") else None
    operations = tuple(_operation(where, op) for op in data.get("operations", []))
    return ProductSpec(
        carrier_id=carrier["id"], carrier=head.get("carrier", carrier["name"]),
        product_id=product["id"], product_name=product["name"], line=product["line"],
        version=int(head.get("version", 1)), title=data.get("title", product["name"]),
        summary=data.get("summary", "").strip(), default=default,
        outside=data.get("outside", default), states=states,
        all_states=set(states) == set(all_state_codes),
        excluded_states=tuple(data.get("excluded_states", ())),
        core=tuple((str(c), int(p), label(c, n)) for c, p, n in data.get("core", ())),
        groups=tuple((str(c), int(p), label(c, n)) for c, p, n in data.get("groups", ())),
        referral=tuple((str(c), int(p), label(c, n)) for c, p, n in data.get("referral", ())),
        excluded=tuple((str(c), label(c, n)) for c, n in data.get("excluded", ())),
        excluded_groups=tuple((str(c), label(c, n)) for c, n in data.get("excluded_groups", ())),
        bands=bands, losses=losses, max_limit=Decimal(str(product["max_limit"])),
        authority=_amount(data.get("authority")), operations=operations,
        topics={topic: dict(data[topic]) for topic in TOPICS if data.get(topic)},
        screens=tuple(data.get("screens", ())), rules=data.get("rules", "").strip(),
        sample=dict(data.get("sample", {})), tests=data.get("tests", "").strip(),
        manifest=product)


def label(code: Any, name: Any) -> str:
    """How reasons name a class: the NAICS 2022 title of an exact code in sentence case, else
    the guide's own words with a capital."""
    title = naics_reference.title(str(code)) if len(str(code)) == 6 else None
    if title:
        return title[0] + title[1:].lower().replace(" u.s.", " U.S.")
    text = str(name)
    return text[:1].upper() + text[1:]


def _amount(value: Any) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _band(where: str, name: str, data: dict) -> Band:
    unknown = sorted(set(data) - set(BAND_KEYS))
    if unknown:
        raise GuideError(f"{where}.{name}: unknown key(s) {unknown}")
    core = tuple(Decimal(str(v)) for v in data.get("core", ()))
    points = tuple(int(p) for p in data.get("points", (10, 4)))
    if len(points) != 2 or len(core) not in (1, 2):
        raise GuideError(f"{where}.{name}: `core` is [low] or [low, high], `points` [core, within]")
    return Band(_amount(data.get("below")), _amount(data.get("min")), core, _amount(data.get("max")),
                _amount(data.get("above")), points)  # type: ignore[arg-type]


def _losses(where: str, data: dict) -> Losses:
    unknown = sorted(set(data) - set(LOSS_KEYS))
    if unknown:
        raise GuideError(f"{where}.losses: unknown key(s) {unknown}")
    points = tuple(int(p) for p in data.get("points", (15, 5, 0)))
    max_incurred = Decimal(str(data["max_incurred"]))
    headroom = tuple(Decimal(str(v)) for v in data.get(
        "headroom", (max_incurred * Decimal("0.4"), max_incurred * Decimal("0.25"))))
    return Losses(int(data.get("lookback", 3)), int(data["max_claims"]), max_incurred,
                  _amount(data.get("large")), points, headroom,  # type: ignore[arg-type]
                  bool(data.get("require_runs", False)))


def _operation(where: str, data: dict) -> Operation:
    unknown = sorted(set(data) - set(OPERATION_KEYS))
    if unknown:
        raise GuideError(f"{where}.operations: unknown key(s) {unknown}")
    decision = data.get("decision", "decline")
    if decision not in ("decline", "refer"):
        raise GuideError(f"{where}.operations `{data.get('name')}`: decision is decline or refer")
    tag = data.get("tag", "prohibited_operation" if decision == "decline" else "operations_review")
    return Operation(data["name"], data.get("title", data["name"]), tuple(data["phrases"]),
                     decision, data["reason"], tag)
