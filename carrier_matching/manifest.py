"""Reading a carrier manifest (`carrier.toml`) into a Carrier and its Products, with every problem
located by file, line and column."""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field

from insureops.carrier_matching.lines import LINE_CODES
from insureops.carrier_matching.market import STRENGTHS, Carrier, Problem, Product
from insureops.carrier_matching.profiles import parse_access, parse_carrier_profile
from insureops.carrier_matching.regulation import (
    MONOPOLISTIC_COMP_STATES,
    WORKERS_COMP,
    surplus_lines_forbidden,
)
from insureops.carrier_matching.toml_tables import (
    MAX_MANIFEST_DEPTH,
    SLUG,
    Locator,
    TableReader,
    toml_message,
    toml_position,
    too_deep,
)

MANIFEST_NAME = "carrier.toml"
RATINGS = frozenset({"A++", "A+", "A", "A-", "B++", "B+", "B", "B-", "C++", "C+", "C", "C-",
                     "D", "E", "F", "S", "NR"})
MARKETS = ("admitted", "surplus_lines")
NAIC_CODE = re.compile(r"^[0-9]{5}$")
CARRIER_FIELDS = ("id", "name", "naic_code", "rating", "market", "states", "website", "active",
                  "type", "access", "via", "submission_email", "submission_portal", "quote_url",
                  "guide_effective", "guide_reviewed")
PRODUCT_FIELDS = ("id", "line", "name", "description", "states", "minimum_premium", "max_limit",
                  "max_aggregate", "admitted", "active", "appetite", "strength", "access", "via",
                  "quote_url")


@dataclass
class ManifestResult:
    """What one manifest gave: the carrier (None when unusable), its products and the problems."""

    carrier: Carrier | None = None
    products: list[Product] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    tables: dict[str, str] = field(default_factory=dict)  # product id -> its table's name
    locator: Locator | None = None

    def where(self, product_id: str, key: str) -> tuple[int | None, int | None]:
        """Line and column of a product's field in the manifest."""
        if self.locator is None or product_id not in self.tables:
            return None, None
        return self.locator.where(self.tables[product_id], key)


def parse_manifest(path: str, text: str) -> ManifestResult:
    """The carrier and products that the manifest at `path` (its text) describes."""
    result = ManifestResult()
    deep = too_deep(text)
    if deep is not None:
        result.problems.append(Problem(path, *deep, "manifest_too_deep", "arrays or inline "
                                       f"tables nested deeper than {MAX_MANIFEST_DEPTH} levels"))
        return result
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = toml_position(str(exc))
        result.problems.append(Problem(path, line, column, "manifest_syntax",
                                       f"not valid TOML: {toml_message(str(exc))}"))
        return result
    locator = result.locator = Locator(text)
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    top = TableReader(path, locator, "", document, result.problems)
    top.unknown_fields(("carrier", "products", "territories"))
    section = document.get("carrier")
    if not isinstance(section, dict):
        top.problem(None, "missing_field", "missing table `[carrier]`")
        return result
    territories = document.get("territories") or []
    if not isinstance(territories, list) or not all(isinstance(t, dict) for t in territories):
        top.problem("territories", "invalid_field", "`territories` must be `[[territories]]` tables")
        territories = []
    result.carrier = _parse_carrier(
        TableReader(path, locator, "carrier", section, result.problems), folder,
        [TableReader(path, locator, f"territories[{index}]", data, result.problems)
         for index, data in enumerate(territories)])
    products = document.get("products", [])
    if not isinstance(products, list) or not products:
        top.problem(None, "missing_field", "a carrier needs at least one `[[products]]` table")
        return result
    for index, data in enumerate(products):
        reader = TableReader(path, locator, f"products[{index}]", data, result.problems)
        product = _parse_product(reader, result.carrier, folder)
        if product is None:
            continue
        if product.id in result.tables:
            reader.problem("id", "duplicate_id", f"product id \"{product.id}\" is used twice")
            continue
        result.tables[product.id] = reader.table
        result.products.append(product)
    return result


def _parse_carrier(reader: TableReader, folder: str,
                   territories: list[TableReader]) -> Carrier | None:
    reader.unknown_fields(CARRIER_FIELDS)
    count = len(reader.problems)
    carrier_id = reader.text("id")
    if carrier_id is not None and carrier_id != folder:
        reader.problem("id", "invalid_field",
                       f"`carrier.id` \"{carrier_id}\" must be the folder's name \"{folder}\"")
    elif carrier_id is not None and not SLUG.match(carrier_id):
        reader.problem("id", "invalid_field", "`carrier.id` must be lowercase words joined by -")
    name = reader.text("name")
    naic_code = reader.text("naic_code")
    if naic_code is not None and not NAIC_CODE.match(naic_code):
        reader.problem("naic_code", "invalid_field", "`carrier.naic_code` must be 5 digits")
    rating = reader.text("rating")
    if rating is not None and rating not in RATINGS:
        reader.problem("rating", "invalid_field", f"`carrier.rating` \"{rating}\" is not an AM "
                       "Best-style rating (A++, A+, A, A-, B++, ... or NR)")
    market = reader.text("market")
    if market is not None and market not in MARKETS:
        reader.problem("market", "invalid_field",
                       "`carrier.market` must be \"admitted\" or \"surplus_lines\"")
    states = reader.states("states", None)
    website = reader.link("website")
    active = reader.flag("active", True)
    profile = parse_carrier_profile(reader, territories, states, market)
    if len(reader.problems) > count or states is None:
        return None
    return Carrier(carrier_id, name, naic_code, rating, market, states, website, active, profile)


def _parse_product(reader: TableReader, carrier: Carrier | None, folder: str) -> Product | None:
    reader.unknown_fields(PRODUCT_FIELDS)
    count = len(reader.problems)
    code = reader.text("id")
    if code is not None and not SLUG.match(code):
        reader.problem("id", "invalid_field",
                       f"`{reader.field_name('id')}` must be lowercase words joined by -")
    line = reader.text("line")
    if line is not None and line not in LINE_CODES:
        close = difflib.get_close_matches(line, sorted(LINE_CODES), n=1)
        hint = f" (did you mean \"{close[0]}\"?)" if close else ""
        reader.problem("line", "unknown_line", f"`{reader.field_name('line')}` \"{line}\" is not "
                       f"a line of business code{hint}")
    name = reader.text("name")
    description = reader.text("description")
    states = reader.states("states", carrier.states if carrier else frozenset())
    if carrier is not None and states is not None and not states <= carrier.states:
        outside = ", ".join(sorted(states - carrier.states))
        reader.problem("states", "invalid_field", f"`{reader.field_name('states')}` names "
                       f"states the carrier does not write in: {outside}")
    minimum_premium = reader.amount("minimum_premium")
    max_limit = reader.amount("max_limit")
    max_aggregate = reader.amount("max_aggregate", required=False)
    if max_limit is not None and max_aggregate is not None and max_aggregate < max_limit:
        reader.problem("max_aggregate", "invalid_field",
                       f"`{reader.field_name('max_aggregate')}` is below `max_limit`")
    admitted = reader.flag("admitted", carrier.admitted if carrier else True)
    active = reader.flag("active", True)
    strength = reader.choice("strength", STRENGTHS)
    access = parse_access(reader, required=False)
    quote_url = reader.link("quote_url")
    if line is not None and states is not None:
        _regulatory_problems(reader, line, admitted, states)
    appetite = reader.text("appetite")
    if appetite is not None and (not appetite.endswith(".rules") or "/" in appetite):
        reader.problem("appetite", "invalid_field",
                       f"`{reader.field_name('appetite')}` must name a .rules file in the "
                       "carrier's folder")
    if len(reader.problems) > count or carrier is None or states is None:
        return None
    appetite_path = f"{folder}/{appetite}" if folder else appetite
    return Product(f"{carrier.id}/{code}", carrier.id, line, name, description, states,
                   minimum_premium, max_limit, max_aggregate, admitted, appetite_path, active,
                   strength, access, quote_url)  # type: ignore[arg-type]


def _regulatory_problems(reader: TableReader, line: str, admitted: bool,
                         states: frozenset[str]) -> None:
    """What the regulatory facts forbid this product (carrier_matching.regulation)."""
    forbidden = surplus_lines_forbidden(line, admitted)
    if forbidden is not None:
        reader.problem("line", "regulatory", forbidden)
    monopolistic = sorted(states & MONOPOLISTIC_COMP_STATES) if line == WORKERS_COMP else []
    if monopolistic:
        reader.problem("states", "regulatory", f"`{reader.field_name('states')}` offers workers "
                       f"compensation in {', '.join(monopolistic)}, monopolistic states where "
                       "only the state fund writes it")


