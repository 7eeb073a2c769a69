"""The sections every appetite has, written from its spec: header and consts, eligibility,
classes, bands, losses, requested limit and acceptance, in the conventions of
docs/carrier-finder.md ("Appetite conventions")."""

from __future__ import annotations

from decimal import Decimal

from insureops.carrier_matching.description import phrase_pattern
from insureops.carrier_matching.guides.spec import Band, ProductSpec
from insureops.carrier_matching.guides.text import (
    comment_block,
    message,
    money,
    number,
    plain,
    quote,
    string_set,
)
from insureops.carrier_matching.lines import line_by_code
from insureops.carrier_matching.questions import ASK_REASON_PREFIX, ASK_TAG_PREFIX, question
from insureops.carrier_matching.regulation import MONOPOLISTIC_COMP_STATES, WORKERS_COMP

# The lines a business's one `requested_limit` speaks for (its primary liability limit); every
# other line reads only a request of its own (`requests`).
PRIMARY_LIABILITY_LINES = frozenset({"CGL", "BOP", "AUTOB", "GARAG", "LIQUR", "EO"})
# band name -> (value expression, field asked, how a value reads, money?, noun for edges)
BAND_FIELDS = {
    "revenue": ("business.annual_revenue", "annual_revenue", "Annual revenue of ${v}", True),
    "payroll": ("coalesce(business.payroll, sum(c.payroll for c in business.payroll_by_class))",
                "payroll", "Annual payroll of ${v}", True),
    "employees": ("business.employee_count", "employee_count", "{v} employees", False),
    "years": ("business.years_in_business", "years_in_business", "{v} years in business", False),
    "units": ("business.fleet.power_units", "fleet.power_units", "{v} power units", False),
}
BAND_TITLES = {"revenue": "Annual revenue", "payroll": "Annual payroll",
               "employees": "Employee count", "years": "Years in business",
               "units": "Power units"}


def rule(name: str, title: str, priority: int, when: str, then: list[str]) -> list[str]:
    """One rule's text; `when` may span lines (continuations indented by the caller)."""
    return ([f'rule {name} {quote(title)} priority {priority}', f"when {when}", "then"]
            + [f"    {action}" for action in then] + ["end", ""])


def ask(field: str, why: str) -> list[str]:
    """The actions of an unanswered question: an "Ask the client" reason and its tag."""
    text = question(field).text
    return [f"reason {message(ASK_REASON_PREFIX + text + (' ' + why if why else ''))}",
            f"tag {quote(ASK_TAG_PREFIX + field)}"]


def amount(value: Decimal, is_money: bool) -> str:
    return money(value) if is_money else plain(value)


def header(spec: ProductSpec) -> list[str]:
    line = line_by_code(spec.line)
    lines = [f"# {spec.carrier} appetite guide: {spec.product_name} ({line.name if line else spec.line})."]
    if spec.summary:
        lines += comment_block(spec.summary)
    lines += ["# Written from guide.toml by examples/market/write_appetites.py: edit the guide, not",
              "# this file (docs/carrier-finder.md, \"Appetite guides\").",
              f"ruleset {spec.ruleset_name} {quote(spec.carrier + ': ' + spec.title)}",
              f"version {spec.version}", "input business: Business",
              f"default decision {spec.default}", ""]
    return lines


def consts(spec: ProductSpec) -> list[str]:
    lines = ["# The line this product writes, for the limit asked for on it",
             f"const LINE = {quote(spec.line)}"]
    if not spec.all_states:
        lines += ["# Where the product is offered", f"const STATES = {string_set(spec.states)}"]
    if spec.excluded_states:
        lines += ["# States the program does not write", 
                  f"const EXCLUDED_STATES = {string_set(spec.excluded_states)}"]
    if spec.line == WORKERS_COMP:
        lines += ["# Monopolistic workers compensation states: only the state fund writes comp "
                  "(carrier_matching/regulation.py)",
                  f"const MONOPOLISTIC_STATES = {string_set(sorted(MONOPOLISTIC_COMP_STATES))}"]
    if spec.excluded:
        lines += ["# Excluded classes, which win over every class the program writes",
                  f"const EXCLUDED_CLASSES = {string_set(c for c, _ in spec.excluded)}"]
    if spec.excluded_groups:
        lines += ["# Excluded class groups (NAICS prefixes)",
                  f"const EXCLUDED_GROUPS = {string_set(c for c, _ in spec.excluded_groups)}"]
    if spec.losses is not None:
        losses = spec.losses
        lines += [f"# Loss history: at most {losses.max_claims} claims and "
                  f"{money(losses.max_incurred)} incurred in {losses.lookback} years"
                  + (f"; a single loss of {money(losses.large)} or more refers" if losses.large else ""),
                  f"const LOSS_LOOKBACK = {losses.lookback} years",
                  f"const MAX_CLAIMS = {losses.max_claims}",
                  f"const MAX_INCURRED = {number(losses.max_incurred)}"]
        if losses.large:
            lines.append(f"const LARGE_LOSS = {number(losses.large)}")
    lines += ["# Per-occurrence (per-claim) limits: the product's maximum"
              + (", and the line authority" if spec.authority else ""),
              f"const MAX_LIMIT = {number(spec.max_limit)}"]
    if spec.authority:
        lines.append(f"const LINE_AUTHORITY = {number(spec.authority)}")
    return lines + [""]


def eligibility(spec: ProductSpec) -> list[str]:
    out = ["# --- Eligibility: declines here end the evaluation ---", ""]
    out += rule("missing_information", "Class and state are needed to review", 600,
                "business.naics is null or business.state is null",
                ["refer \"A NAICS class and a state are needed before underwriting can review\"",
                 'tag "missing_information"'])
    if not spec.all_states:
        out += rule("outside_states", "States where the product is not offered", 500,
                    "not (business.state in STATES)",
                    [f"decline {message(spec.carrier + ' does not offer this product in {business.state}')}",
                     'tag "state"', "stop"])
    if spec.excluded_states:
        out += rule("excluded_states", "Excluded states", 500, "business.state in EXCLUDED_STATES",
                    [f"decline {message(spec.carrier + ' does not write this program in {business.state}')}",
                     'tag "state"', "stop"])
    if spec.line == WORKERS_COMP:
        out += rule("monopolistic_state", "Monopolistic workers compensation states", 490,
                    "business.state in MONOPOLISTIC_STATES",
                    ["decline \"{business.state} is a monopolistic state: workers compensation is "
                     "written only by the state fund; offer stop-gap employers liability on the "
                     "general liability\"", 'tag "regulatory"', "stop"])
    if spec.excluded or spec.excluded_groups:
        rows = [(f'"{c}"', n) for c, n in spec.excluded] + \
               [(f'starts_with "{c}"', n) for c, n in spec.excluded_groups]
        out += ['table excluded_name "Names of the excluded classes" hit first priority 485',
                "    | business.naics | => excluded_name |"]
        out += [f"    | {cell} | {quote(name)} |" for cell, name in rows]
        out += ["    | - | null |", "end", ""]
        parts = []
        if spec.excluded:
            parts.append("business.naics in EXCLUDED_CLASSES")
        if spec.excluded_groups:
            parts.append("any(p in EXCLUDED_GROUPS where business.naics starts_with p)")
        out += rule("excluded_class", "Excluded classes, whatever else is true", 480,
                    "\n    or ".join(parts),
                    ["decline \"{outputs.excluded_name ?? \"This class\"} (NAICS {business.naics}) "
                     f"is excluded: {spec.carrier} does not write it\"",
                     'tag "excluded_class"', "stop"])
    for op in spec.operations:
        phrases = []
        for phrase in op.phrases:
            for variant in phrase_variants(phrase):
                if variant not in phrases:
                    phrases.append(variant)
        when = "\n    or ".join(f"business.activities contains {quote(p)}" for p in phrases)
        then = [f"{op.decision} {message(op.reason)}", f"tag {quote(op.tag)}"]
        if op.decision == "decline":
            then.append("stop")
        out += rule(op.name, op.title, 460 if op.decision == "decline" else 300, when, then)
    return out


def phrase_variants(phrase: str) -> list[str]:
    """The phrase as whole words, and its last word's plural (`tanker`, `tankers`)."""
    base = phrase_pattern(phrase)
    found = [base]
    if not base.endswith("s "):
        found.append(base[:-1] + "s ")
    return found


def classes(spec: ProductSpec) -> list[str]:
    out = ["# --- Classes: exact codes before referrals before groups ---", "",
           'table class_fit "Class fit: exact codes before groups" hit first priority 450',
           "    | business.naics | => class_fit | => class_points | => class_label |",
           '    | is null | "unknown" | 0 | "" |']
    out += [f'    | "{c}" | "core" | {p} | {quote(n)} |' for c, p, n in spec.core]
    # the most specific row first, so a roofer referred under "238160" is not named by "2381"
    out += [f'    | {_cell(c)} | "referral" | {p} | {quote(n)} |'
            for c, p, n in sorted(spec.referral, key=lambda row: -len(row[0]))]
    out += [f'    | starts_with "{c}" | "group" | {p} | {quote(n)} |'
            for c, p, n in sorted(spec.groups, key=lambda row: -len(row[0]))]
    out += ['    | - | "none" | 0 | "" |', "end", ""]
    if spec.outside == "refer":
        out += rule("outside_classes", "Classes outside the program go to an underwriter", 440,
                    'outputs.class_fit == "none"',
                    ["refer \"NAICS {business.naics} is outside the program's classes: an "
                     "underwriter reviews it\"", 'tag "outside_class"'])
    else:
        out += rule("outside_classes", "Classes the program was not built for", 440,
                    'outputs.class_fit == "none"',
                    ["decline \"NAICS {business.naics} is outside the classes this program writes\"",
                     'tag "outside_class"', "stop"])
    return out


def _cell(code: str) -> str:
    return f'"{code}"' if len(code) == 6 else f'starts_with "{code}"'


def bands(spec: ProductSpec) -> list[str]:
    out: list[str] = []
    for name, band in spec.bands.items():
        out += _band(spec, name, band)
    return out


def _band(spec: ProductSpec, name: str, band: Band) -> list[str]:
    expr, field, reads, is_money = BAND_FIELDS[name]
    title = BAND_TITLES[name]
    value = reads.replace("{v}", "{" + expr + "}") if "coalesce" not in expr else \
        reads.replace("{v}", "{outputs." + name + "_value}")
    fit, points = f"{name}_fit", f"{name}_points"
    rows = ['    | is null | "unknown" | 0 |']
    if band.below is not None:
        rows.append(f'    | < {number(band.below)} | "below" | 0 |')
        rows.append(f'    | < {number(band.min)} | "low_edge" | 0 |')
    elif band.min is not None:
        rows.append(f'    | < {number(band.min)} | "below" | 0 |')
    if len(band.core) == 2:
        rows.append(f'    | between {number(band.core[0])} and {number(band.core[1])} | "core" | '
                    f'{band.points[0]} |')
    else:
        rows.append(f'    | >= {number(band.core[0])} | "core" | {band.points[0]} |')
    if band.max is not None:
        rows.append(f'    | <= {number(band.max)} | "within" | {band.points[1]} |')
        if band.above is not None:
            rows.append(f'    | <= {number(band.above)} | "high_edge" | 0 |')
        rows.append('    | - | "above" | 0 |')
    else:
        rows.append(f'    | - | "within" | {band.points[1]} |')
    source = expr
    out = []
    if "coalesce" in expr:
        out += rule(f"{name}_value", f"{title}: given, or added up by class", 420, "true",
                    [f"set {name}_value = {expr}"])
        source = f"outputs.{name}_value"
    out += [f'table {name}_band "{title}: where it sits in the band" hit first priority 400',
            f"    | {source} | => {fit} | => {points} |", *rows, "end", ""]
    out += rule(f"{name}_score", f"Score: {title.lower()} near the centre of the band", 390,
                f"outputs.{points} > 0", [f"score += outputs.{points}"])
    limits = _band_limits(band, is_money)
    out += rule(f"{name}_unknown", f"{title} not given", 390, f'outputs.{fit} == "unknown"',
                ask(field, f"(the program writes {limits})"))
    if band.min is not None:
        floor = band.below if band.below is not None else band.min
        out += rule(f"{name}_below_minimum", f"{title} below the program", 390,
                    f'outputs.{fit} == "below"',
                    [f"decline {message(value + ' is below the ' + amount(floor, is_money) + ' minimum of this program')}",
                     f'tag "{name}"'])
    if band.below is not None:
        out += rule(f"{name}_low_edge", f"{title} just below the band", 390,
                    f'outputs.{fit} == "low_edge"',
                    [f"refer {message(value + ' is below the ' + amount(band.min, is_money) + ' the program writes; underwriting may still write it')}",
                     f'tag "{name}"'])
    if band.max is not None and band.above is not None:
        out += rule(f"{name}_high_edge", f"{title} just above the band", 390,
                    f'outputs.{fit} == "high_edge"',
                    [f"refer {message(value + ' is above the ' + amount(band.max, is_money) + ' the program writes; refer to underwriting')}",
                     f'tag "{name}"'])
    if band.max is not None:
        ceiling = band.above if band.above is not None else band.max
        out += rule(f"{name}_above_maximum", f"{title} beyond the program", 390,
                    f'outputs.{fit} == "above"',
                    [f"decline {message(value + ' is above the ' + amount(ceiling, is_money) + ' this program writes')}",
                     f'tag "{name}"'])
    return out


def _band_limits(band: Band, is_money: bool) -> str:
    low, high = band.min, band.max
    if low is not None and high is not None:
        return f"{amount(low, is_money)} to {amount(high, is_money)}"
    if low is not None:
        return f"from {amount(low, is_money)}"
    if high is not None:
        return f"up to {amount(high, is_money)}"
    return "any size"


def core_reasons(spec: ProductSpec) -> list[str]:
    """Why an accepted risk fits: the bands it sits in the core of, and a clean loss record."""
    out: list[str] = []
    accepted = 'outputs.class_fit in {"core", "group"}'
    for name, band in spec.bands.items():
        expr, _, reads, is_money = BAND_FIELDS[name]
        source = f"outputs.{name}_value" if "coalesce" in expr else expr
        value = reads.replace("{v}", "{" + source + "}")
        if len(band.core) == 2:
            where = (f" is in the program's sweet spot ({amount(band.core[0], is_money)} to "
                     f"{amount(band.core[1], is_money)})")
        else:
            where = f": the program's sweet spot is {amount(band.core[0], is_money)} or more"
        out += rule(f"{name}_fits", f"Why it fits: {BAND_TITLES[name].lower()}", 95,
                    f'{accepted} and outputs.{name}_fit == "core"',
                    [f"reason {message(value + where)}"])
    if spec.losses is not None:
        out += rule("clean_losses", "Why it fits: no recent claims", 95,
                    f"{accepted} and outputs.recent_claims == 0",
                    [f"reason \"No claims in the last {spec.losses.lookback} years\""])
    return out


def losses(spec: ProductSpec) -> list[str]:
    if spec.losses is None:
        return []
    lo = spec.losses
    out = [f"# --- Loss history over the last {lo.lookback} years ---", ""]
    out += rule("recent_losses", f"Claims and incurred losses in the last {lo.lookback} years", 410,
                "business.prior_claims is not null",
                ["set recent_claims = count(c in business.prior_claims where c.date > today() - LOSS_LOOKBACK)",
                 "set recent_incurred = sum(c.amount for c in business.prior_claims where c.date > today() - LOSS_LOOKBACK) ?? 0"])
    out += ['table loss_headroom "Loss headroom under the program\'s limits" hit first priority 400',
            "    | outputs.recent_claims | outputs.recent_incurred | => loss_points |",
            f"    | 0 | - | {lo.points[0]} |",
            f"    | 1 | < {number(lo.headroom[0])} | {lo.points[1]} |",
            f"    | <= MAX_CLAIMS | < {number(lo.headroom[1])} | {lo.points[2]} |",
            "    | - | - | 0 |", "end", ""]
    out += rule("loss_score", "Score: headroom under the loss limits", 390,
                "outputs.loss_points > 0", ["score += outputs.loss_points"])
    if lo.require_runs:
        out += rule("loss_runs_missing", "No loss history given", 300,
                    "business.prior_claims is null",
                    [f"refer \"Loss runs for the last {lo.lookback} years are needed to quote\"",
                     'tag "missing_information"', f'tag "{ASK_TAG_PREFIX}prior_claims"'])
    else:
        out += rule("loss_runs_unknown", "No loss history given", 300,
                    "business.prior_claims is null", ask("prior_claims", ""))
    out += rule("too_many_claims", "More claims than the program allows", 300,
                "outputs.recent_claims > MAX_CLAIMS",
                [f"decline \"{{outputs.recent_claims}} claims in {lo.lookback} years; the program "
                 f"takes at most {lo.max_claims}\"", 'tag "loss_history"'])
    out += rule("losses_too_large", "Incurred losses above the program limit", 300,
                "outputs.recent_incurred > MAX_INCURRED",
                [f"decline \"Losses of ${{outputs.recent_incurred}} in {lo.lookback} years exceed "
                 f"the {money(lo.max_incurred)} the program accepts\"", 'tag "loss_history"'])
    if lo.large:
        out += rule("large_single_loss", f"A single large loss in {lo.lookback} years", 290,
                    "any(c in business.prior_claims where c.date > today() - LOSS_LOOKBACK and "
                    "c.amount >= LARGE_LOSS)",
                    [f"refer \"A single loss of {money(lo.large)} or more needs underwriting "
                     "review\"", 'tag "large_loss"'])
    return out


def limits(spec: ProductSpec) -> list[str]:
    line = line_by_code(spec.line)
    noun = line.name.lower() if line else spec.line
    asked = "max(r.limit for r in business.requests where r.line == LINE)"
    if spec.line in PRIMARY_LIABILITY_LINES:
        out = ["# --- The limit asked for on this line: its own request, else the one limit given ---", ""]
        asked = f"coalesce({asked}, business.requested_limit)"
    else:
        out = ["# --- The limit asked for on this line: its own request (the one `requested_limit`",
               "# is a primary liability limit and says nothing of this line) ---", ""]
    out += rule("requested_limit", "The limit asked for on this line", 420, "true",
                [f"set requested_limit = {asked}"])
    out += rule("limit_above_maximum", "Requested limit above the product maximum", 250,
                "outputs.requested_limit > MAX_LIMIT",
                [f"decline \"A {noun} limit of ${{outputs.requested_limit}} is above the "
                 f"{money(spec.max_limit)} this product writes\"", 'tag "limit"'])
    if spec.authority and spec.authority < spec.max_limit:
        out += rule("limit_above_authority", "Requested limit above the line authority", 250,
                    "outputs.requested_limit > LINE_AUTHORITY and outputs.requested_limit <= MAX_LIMIT",
                    [f"refer \"A {noun} limit of ${{outputs.requested_limit}} is above the "
                     f"{money(spec.authority)} line authority: the underwriter signs it off\"",
                     'tag "limit"'])
    return out


def acceptance(spec: ProductSpec) -> list[str]:
    out = ["# --- In appetite ---", ""]
    out += rule("core_class", "A core class of the program", 100, 'outputs.class_fit == "core"',
                ["score += outputs.class_points",
                 "accept \"Target class: {outputs.class_label} (NAICS {business.naics})\""])
    if spec.groups:
        out += rule("class_group", "A class group the program writes", 100,
                    'outputs.class_fit == "group"',
                    ["score += outputs.class_points",
                     "accept \"In a class group the program writes: {outputs.class_label} "
                     "(NAICS {business.naics})\""])
    if spec.referral:
        out += rule("referral_class", "Classes written on referral only", 100,
                    'outputs.class_fit == "referral"',
                    ["score += outputs.class_points",
                     "refer \"Written on referral only: {outputs.class_label} "
                     "(NAICS {business.naics})\"", 'tag "referral_class"'])
    return out
