"""Checking a whole market folder (given as texts by relative path) and building the Market."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from insureops.carrier_matching.compiled import AppetiteCache, CheckedAppetite, checked_appetite
from insureops.carrier_matching.manifest import MANIFEST_NAME, ManifestResult, parse_manifest
from insureops.carrier_matching.market import (
    Appetite,
    Carrier,
    Intermediary,
    Market,
    MarketInvalidError,
    Problem,
    Product,
)
from insureops.carrier_matching.profiles import INTERMEDIARIES_NAME, parse_intermediaries
from insureops.dsl.api import check_source
from insureops.dsl.diagnostics import Diagnostic
from insureops.dsl.errors import RulesetInvalidError
from insureops.engine.evaluation.compiler import evaluate_consts
from insureops.engine.ir.errors import EngineError
from insureops.engine.ir.result import TestOutcome

APPETITE_SUFFIX = ".rules"
APPETITE_PREFIX = "appetite."
BUSINESS_INPUT = ("business", "Business")
LIMIT_CONST = "MAX_LIMIT"


@dataclass(frozen=True)
class MarketReport:
    """The outcome of checking a market: the Market when there is no problem, and the problems
    (errors and warnings alike; a market must have none) in file and line order."""

    market: Market | None
    problems: tuple[Problem, ...]
    tests_run: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def check_market(texts: Mapping[str, str], *, as_of: date | None = None,
                 run_tests: bool = True, cache: AppetiteCache | None = None) -> MarketReport:
    """Check every manifest and appetite in `texts` (relative path with `/` -> file text): each
    appetite checks with no error or warning and, with `run_tests`, passes its embedded tests
    (`as_of` is the date tests without their own `as of` see); each product names a known line,
    known states and an appetite of its carrier's folder. Only `carrier.toml`, the market's
    `intermediaries.toml` and `.rules` files are read; other files (README.md) are ignored."""
    problems: list[Problem] = []
    manifests: dict[str, ManifestResult] = {}
    sources: dict[str, str] = {}
    intermediaries: list[Intermediary] = []
    for path in sorted(texts):
        folder, _, name = path.rpartition("/")
        if path == INTERMEDIARIES_NAME:
            intermediaries, found = parse_intermediaries(path, texts[path])
            problems += found
        elif name == MANIFEST_NAME and "/" not in folder and folder:
            manifests[path] = parse_manifest(path, texts[path])
            problems += manifests[path].problems
        elif name.endswith(APPETITE_SUFFIX):
            if not folder or "/" in folder:
                problems.append(Problem(path, None, None, "misplaced_file", "an appetite belongs "
                                        "directly in its carrier's folder, next to carrier.toml"))
            else:
                sources[path] = texts[path]
    for folder in sorted({path.rpartition("/")[0] for path in sources}):
        if f"{folder}/{MANIFEST_NAME}" not in manifests:
            problems.append(Problem(folder, None, None, "missing_manifest",
                                    f"carrier folder `{folder}` has appetites but no carrier.toml"))
    appetites, limits, tests_run = _check_appetites(sources, as_of, run_tests, problems, cache)
    carriers, products = _check_references(manifests, sources, limits, problems)
    _check_access(manifests, intermediaries, problems)
    problems.sort(key=lambda p: (p.file, p.line or 0, p.column or 0))
    if problems:
        return MarketReport(None, tuple(problems), tests_run)
    market = Market(tuple(carriers), tuple(products), tuple(appetites[p] for p in sorted(appetites)),
                    tuple(intermediaries))
    return MarketReport(market, (), tests_run)


def load_market(texts: Mapping[str, str], *, as_of: date | None = None,
                run_tests: bool = False, cache: AppetiteCache | None = None) -> Market:
    """The checked Market of `texts`; raises MarketInvalidError listing every problem."""
    report = check_market(texts, as_of=as_of, run_tests=run_tests, cache=cache)
    if report.market is None:
        raise MarketInvalidError(list(report.problems))
    return report.market


def _check_appetites(sources: dict[str, str], as_of: date | None, run_tests: bool,
                     problems: list[Problem], cache: AppetiteCache | None
                     ) -> tuple[dict[str, Appetite], dict[str, Decimal | None], int]:
    """Each source's Appetite (when it checks clean) and its MAX_LIMIT const, by path."""
    appetites: dict[str, Appetite] = {}
    limits: dict[str, Decimal | None] = {}
    names: dict[str, str] = {}
    tests_run = 0
    for path, source in sources.items():
        checked = cache.get(source, path) if cache is not None else None
        if checked is None:
            checked = _check_source(path, source, problems)
            if checked is None:
                continue
            if cache is not None:
                cache.put(source, checked)
        found = _header_problems(path, checked, names)
        names.setdefault(checked.name, path)
        problems.extend(found)
        if found:
            continue
        if run_tests:
            try:
                outcomes = checked.ruleset.run_tests(as_of=as_of)
            except RulesetInvalidError as exc:  # checked clean, so only a compile-time limit
                problems.extend(_diagnostic(path, d) for d in exc.diagnostics)
                continue
            tests_run += len(outcomes)
            problems.extend(_test_failure(path, o) for o in outcomes if not o.passed)
        appetites[path] = Appetite(checked.name, path, source, checked.ruleset)
        limits[path] = checked.max_limit
    return appetites, limits, tests_run


def check_appetite(path: str, source: str) -> tuple[CheckedAppetite | None, list[Problem]]:
    """One appetite's source parsed and checked once (not compiled): its CheckedAppetite, or
    None and its problems. The service reads stored appetites through this."""
    problems: list[Problem] = []
    return _check_source(path, source, problems), problems


def _check_source(path: str, source: str, problems: list[Problem]) -> CheckedAppetite | None:
    """Parse and check `source` once; its CheckedAppetite, or None with its problems added."""
    report = check_source(source, filename=path)
    problems.extend(_diagnostic(path, d) for d in report.diagnostics)
    if report.diagnostics or report.ruleset is None:
        return None
    try:
        limit = evaluate_consts(report.ruleset).get(LIMIT_CONST)
    except EngineError as exc:  # the checker reports an invalid const first; never here
        problems.append(Problem(path, None, None, "E115", exc.message))
        return None
    return checked_appetite(report.ruleset, source, path,
                            limit if isinstance(limit, Decimal) else None)


def _header_problems(path: str, ruleset: CheckedAppetite,
                     names: dict[str, str]) -> list[Problem]:
    """What is wrong with an appetite's header: its input, its name, its tests."""
    where = (ruleset.line, ruleset.column)
    found = []
    if list(ruleset.inputs) != [BUSINESS_INPUT]:
        found.append(Problem(path, *where, "appetite_input",
                             "an appetite declares exactly `input business: Business`"))
    if not ruleset.name.startswith(APPETITE_PREFIX):
        found.append(Problem(path, *where, "appetite_name", f"ruleset `{ruleset.name}`: an "
                             f"appetite's name starts with `{APPETITE_PREFIX}`"))
    elif ruleset.name in names:
        found.append(Problem(path, *where, "duplicate_id", f"ruleset `{ruleset.name}` is also "
                             f"the name of {names[ruleset.name]}"))
    if not ruleset.tested:
        found.append(Problem(path, *where, "appetite_untested",
                             "an appetite needs `test` blocks showing its decisions"))
    return found


def _test_failure(path: str, outcome: TestOutcome) -> Problem:
    span = outcome.span
    return Problem(path, span.line if span else None, span.column if span else None,
                   "appetite_test_failed",
                   f"test \"{outcome.description}\" failed: {outcome.message}")


def _check_references(manifests: dict[str, ManifestResult], sources: dict[str, str],
                      limits: dict[str, Decimal | None],
                      problems: list[Problem]) -> tuple[list[Carrier], list[Product]]:
    carriers: list[Carrier] = []
    products: list[Product] = []
    used: set[str] = set()
    naic_codes: dict[str, str] = {}
    for path, manifest in manifests.items():
        carrier = manifest.carrier
        if carrier is None:
            continue
        if carrier.naic_code in naic_codes:
            line, column = manifest.locator.where("carrier", "naic_code")
            problems.append(Problem(path, line, column, "duplicate_id", f"NAIC code "
                                    f"{carrier.naic_code} is also {naic_codes[carrier.naic_code]}'s"))
        naic_codes.setdefault(carrier.naic_code, carrier.id)
        carriers.append(carrier)
        for product in manifest.products:
            used.add(product.appetite)
            products.append(product)
            if product.appetite not in sources:
                line, column = manifest.where(product.id, "appetite")
                problems.append(Problem(path, line, column, "unknown_appetite",
                                        f"product `{product.id}` names appetite "
                                        f"`{product.appetite}`, which does not exist"))
                continue
            limit = limits.get(product.appetite)
            if isinstance(limit, Decimal) and limit != product.max_limit:
                line, column = manifest.where(product.id, "max_limit")
                problems.append(Problem(path, line, column, "limit_mismatch",
                                        f"product `{product.id}` max_limit {product.max_limit} "
                                        f"differs from {LIMIT_CONST} {limit} in its appetite "
                                        f"`{product.appetite}`"))
    readable = {path.rpartition("/")[0] for path, m in manifests.items() if m.carrier is not None}
    for path in sorted(set(sources) - used):
        if path.rpartition("/")[0] not in readable:
            continue  # its manifest's own problems are reported
        problems.append(Problem(path, None, None, "unused_appetite",
                                "no product of the carrier's manifest names this appetite"))
    return carriers, products


def _check_access(manifests: dict[str, ManifestResult], intermediaries: list[Intermediary],
                  problems: list[Problem]) -> None:
    """Each `via` names a wholesaler or MGA of the market, of the kind `access` says."""
    known = {intermediary.id: intermediary for intermediary in intermediaries}
    for path, manifest in manifests.items():
        carrier = manifest.carrier
        if carrier is None:
            continue
        accesses = [("carrier", None, carrier.profile.access if carrier.profile else None)]
        accesses += [(manifest.tables[p.id], p.id, p.access) for p in manifest.products]
        for table, _, access in accesses:
            if access is None or access.via is None:
                continue
            found = known.get(access.via)
            if found is None or found.kind != access.path:
                line, column = manifest.locator.where(table, "via")
                problems.append(Problem(path, line, column, "unknown_intermediary",
                                        f"`via` \"{access.via}\" is not a {access.path} in "
                                        f"{INTERMEDIARIES_NAME}"))


def _diagnostic(path: str, diagnostic: Diagnostic) -> Problem:
    span = diagnostic.span
    message = diagnostic.message + (f" ({diagnostic.hint})" if diagnostic.hint else "")
    return Problem(path, span.line if span else None, span.column if span else None,
                   diagnostic.code, message, diagnostic.severity)
