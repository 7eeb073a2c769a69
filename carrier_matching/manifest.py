"""Reading a carrier manifest (`carrier.toml`) into a Carrier and its Products, with every problem
located by file, line and column."""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal

from insureops.carrier_matching.jurisdictions import STATE_CODES
from insureops.carrier_matching.lines import LINE_CODES
from insureops.carrier_matching.market import Carrier, Problem, Product

MANIFEST_NAME = "carrier.toml"
# Arrays and inline tables nested deeper than this are refused before tomllib reads them: its
# recursive descent raised RecursionError at a few hundred levels (issue 28). A manifest needs 2.
MAX_MANIFEST_DEPTH = 64
RATINGS = frozenset({"A++", "A+", "A", "A-", "B++", "B+", "B", "B-", "C++", "C+", "C", "C-",
                     "D", "E", "F", "S", "NR"})
MARKETS = ("admitted", "surplus_lines")
ALL_STATES = "all"
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NAIC_CODE = re.compile(r"^[0-9]{5}$")
CARRIER_FIELDS = ("id", "name", "naic_code", "rating", "market", "states", "website", "active")
PRODUCT_FIELDS = ("id", "line", "name", "description", "states", "minimum_premium", "max_limit",
                  "max_aggregate", "admitted", "active", "appetite")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
# What may hold a bracket without nesting: the four kinds of string (a multi-line one may end
# in up to two extra quotes) and comments; then the brackets themselves.
_NESTING = re.compile(
    r'"""(?:[^\\]|\\.)*?"{3,5}'
    r"|'''.*?'{3,5}"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
    r"|[\[\]{}]", re.DOTALL)


@dataclass
class ManifestResult:
    """What one manifest gave: the carrier (None when unusable), its products and the problems."""

    carrier: Carrier | None = None
    products: list[Product] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    tables: dict[str, str] = field(default_factory=dict)  # product id -> its table's name
    locator: _Locator | None = None

    def where(self, product_id: str, key: str) -> tuple[int | None, int | None]:
        """Line and column of a product's field in the manifest."""
        if self.locator is None or product_id not in self.tables:
            return None, None
        return self.locator.where(self.tables[product_id], key)


class _Locator:
    """Line and column of each `key =` per table (`carrier`, `products[i]`) in the manifest."""

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, str], tuple[int, int]] = {}
        self.tables: dict[str, int] = {}
        table, products = "", -1
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if stripped.startswith("[[products]]"):
                products += 1
                table = f"products[{products}]"
                self.tables[table] = number
            elif stripped.startswith("["):
                table = stripped.strip("[]").strip()
                self.tables[table] = number
            elif (match := _KEY.match(line)) is not None:
                self.keys.setdefault((table, match.group(1)), (number, match.start(1) + 1))

    def where(self, table: str, key: str | None) -> tuple[int | None, int | None]:
        if key is not None and (table, key) in self.keys:
            return self.keys[(table, key)]
        if table in self.tables:
            return self.tables[table], 1
        return None, None


class _Reader:
    """Typed access to one table of the manifest, recording a located problem per bad field."""

    def __init__(self, path: str, locator: _Locator, table: str, data: dict,
                 problems: list[Problem]) -> None:
        self.path, self.locator, self.table, self.data = path, locator, table, data
        self.problems = problems

    def problem(self, key: str | None, code: str, message: str) -> None:
        line, column = self.locator.where(self.table, key)
        self.problems.append(Problem(self.path, line, column, code, message))

    def field_name(self, key: str) -> str:
        return f"{self.table}.{key}"

    def unknown_fields(self, known: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean `{close[0]}`?)" if close else ""
                self.problem(key, "unknown_field", f"unknown field `{self.field_name(key)}`{hint}")

    def text(self, key: str, *, required: bool = True) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be a non-empty string")
            return None
        return value.strip()

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be true or false")
            return default
        return value

    def amount(self, key: str, *, required: bool = True) -> Decimal | None:
        value = self.data.get(key)
        if value is None:
            if required:
                self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            self.problem(key, "invalid_field",
                         f"`{self.field_name(key)}` must be a number of dollars, 0 or more")
            return None
        return Decimal(str(value))

    def states(self, key: str, default: frozenset[str] | None) -> frozenset[str] | None:
        value = self.data.get(key)
        if value is None:
            if default is None:
                self.problem(None, "missing_field", f"missing field `{self.field_name(key)}`")
            return default
        if value == ALL_STATES:
            return STATE_CODES
        if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
            self.problem(key, "invalid_field", f"`{self.field_name(key)}` must be \"all\" or a "
                         "non-empty list of state codes")
            return None
        unknown = sorted({s for s in value if s not in STATE_CODES})
        if unknown:
            self.problem(key, "unknown_state", f"`{self.field_name(key)}` has unknown state "
                         f"code(s) {', '.join(unknown)} (the 50 states and DC, e.g. \"NY\")")
            return None
        return frozenset(value)


def parse_manifest(path: str, text: str) -> ManifestResult:
    """The carrier and products that the manifest at `path` (its text) describes."""
    result = ManifestResult()
    deep = _too_deep(text)
    if deep is not None:
        result.problems.append(Problem(path, *deep, "manifest_too_deep", "arrays or inline "
                                       f"tables nested deeper than {MAX_MANIFEST_DEPTH} levels"))
        return result
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_position(str(exc))
        result.problems.append(Problem(path, line, column, "manifest_syntax",
                                       f"not valid TOML: {_toml_message(str(exc))}"))
        return result
    locator = result.locator = _Locator(text)
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    top = _Reader(path, locator, "", document, result.problems)
    top.unknown_fields(("carrier", "products"))
    section = document.get("carrier")
    if not isinstance(section, dict):
        top.problem(None, "missing_field", "missing table `[carrier]`")
        return result
    result.carrier = _parse_carrier(_Reader(path, locator, "carrier", section, result.problems),
                                    folder)
    products = document.get("products", [])
    if not isinstance(products, list) or not products:
        top.problem(None, "missing_field", "a carrier needs at least one `[[products]]` table")
        return result
    for index, data in enumerate(products):
        reader = _Reader(path, locator, f"products[{index}]", data, result.problems)
        product = _parse_product(reader, result.carrier, folder)
        if product is None:
            continue
        if product.id in result.tables:
            reader.problem("id", "duplicate_id", f"product id \"{product.id}\" is used twice")
            continue
        result.tables[product.id] = reader.table
        result.products.append(product)
    return result


def _parse_carrier(reader: _Reader, folder: str) -> Carrier | None:
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
    website = reader.text("website", required=False)
    active = reader.flag("active", True)
    if len(reader.problems) > count or states is None:
        return None
    return Carrier(carrier_id, name, naic_code, rating, market, states, website, active)


def _parse_product(reader: _Reader, carrier: Carrier | None, folder: str) -> Product | None:
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
    appetite = reader.text("appetite")
    if appetite is not None and (not appetite.endswith(".rules") or "/" in appetite):
        reader.problem("appetite", "invalid_field",
                       f"`{reader.field_name('appetite')}` must name a .rules file in the "
                       "carrier's folder")
    if len(reader.problems) > count or carrier is None or states is None:
        return None
    appetite_path = f"{folder}/{appetite}" if folder else appetite
    return Product(f"{carrier.id}/{code}", carrier.id, line, name, description, states,
                   minimum_premium, max_limit, max_aggregate, admitted, appetite_path, active)


def _too_deep(text: str) -> tuple[int, int] | None:
    """Line and column of the outermost bracket of a value nested deeper than the bound, else
    None. Brackets count outside strings and comments (a table header counts one or two
    levels), so this never sees less nesting than tomllib would."""
    depth = start = 0
    for match in _NESTING.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            start = match.start() if depth <= 0 else start
            depth = max(depth, 0) + 1
            if depth > MAX_MANIFEST_DEPTH:
                line_start = text.rfind("\n", 0, start) + 1
                return text.count("\n", 0, start) + 1, start - line_start + 1
        elif token in ("]", "}"):
            depth -= 1
    return None


def _toml_position(message: str) -> tuple[int | None, int | None]:
    match = re.search(r"\(at line (\d+), column (\d+)\)", message)
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)


def _toml_message(message: str) -> str:
    return re.sub(r"\s*\(at line \d+, column \d+\)", "", message) or message
