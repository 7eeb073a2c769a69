"""Rule-derived pruning on small hand-written appetites: each pattern the analysis reads (prefix,
exact list, state set, exclusions that win, tables, consts, stop and default decisions), and
what it cannot read keeps the appetite. Every case is also checked against the engine."""

from __future__ import annotations

from datetime import date

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from insureops.carrier_matching.prefix_sets import ALL, MergedTree, StringSet
from insureops.carrier_matching.pruning import build_candidate_index
from insureops.dsl import EvaluationError, RulesetInvalidError, compile_ruleset

AS_OF = date(2026, 3, 1)
CODES = ["238210", "238290", "238160", "2381", "238", "23", "236118", "561720", "722511"]
STATES = ["AZ", "CA", "TX", "FL", "NY"]


def appetite(body: str, default: str = "decline"):
    source = (f"ruleset appetite.unit.program\ninput business: Business\n"
              f"default decision {default}\n{body}")
    return compile_ruleset(source)


def grid():
    for naics in CODES + [None]:
        for state in STATES + [None]:
            yield {"naics": naics, "state": state, "description": "plain work",
                   "annual_revenue": 1_000_000}


def kept(body: str, default: str = "decline", **extra) -> set[tuple]:
    """(naics, state) of the grid for which the appetite is a candidate, after checking that
    every pruned business is declined (or not decided) by the engine."""
    ruleset = appetite(body, default)
    index = build_candidate_index({"a": ruleset})
    found = set()
    for business in grid():
        business.update(extra)
        if "a" in index.candidates(business):
            found.add((business["naics"], business["state"]))
        else:
            decision = ruleset.evaluate({"business": business}, as_of=AS_OF).decision
            assert decision in ("decline", None), (business, decision)
    return found


def codes(pairs: set[tuple], state: str = "AZ") -> set:
    return {naics for naics, st in pairs if st == state}


def states(pairs: set[tuple], naics: str = "238210") -> set:
    return {st for code, st in pairs if code == naics}


def test_prefix_rule_keeps_only_codes_under_the_prefix_when_it_is_the_only_accept():
    pairs = kept('rule r when business.naics starts_with "238" then accept "ok" end')
    assert codes(pairs) == {"238210", "238290", "238160", "2381", "238"}


def test_exact_list_keeps_only_listed_codes_when_read_from_a_const():
    pairs = kept('const TARGET = ["238210", "561720"]\n'
                 'rule r when business.naics in TARGET then accept "ok" end')
    assert codes(pairs) == {"238210", "561720"}


def test_state_set_prunes_other_states_when_a_decline_stops_outside_them():
    pairs = kept('const STATES = {"AZ", "CA"}\n'
                 'rule s priority 10 when not (business.state in STATES) then decline "no" stop end\n'
                 'rule r when lower(business.description) contains "work" then accept "ok" end')
    assert states(pairs) == {"AZ", "CA", None}


def test_exclusions_win_when_an_excluded_group_declines_before_the_class_accepts():
    pairs = kept('const EXCLUDED = ["2381"]\n'
                 'rule x priority 10 when any(p in EXCLUDED where business.naics starts_with p)\n'
                 'then decline "excluded" stop end\n'
                 'rule r when business.naics starts_with "238" then accept "ok" end')
    assert codes(pairs) == {"238210", "238290", "238"}


def test_decline_without_stop_also_excludes_when_it_fires_after_the_accept():
    pairs = kept('rule r priority 10 when business.naics starts_with "238" then accept "ok" end\n'
                 'rule x when business.naics == "238160" then decline "roofing" end')
    assert codes(pairs) == {"238210", "238290", "2381", "238"}


def test_unreadable_condition_keeps_every_business_when_it_refers():
    pairs = kept('rule r when business.naics starts_with "238" then accept "ok" end\n'
                 'rule q when upper(business.state) == "AZ" then refer "look" end')
    assert len(pairs) == len(list(grid()))


def test_unreadable_decline_removes_nothing_when_it_guards_the_class():
    pairs = kept('rule x priority 10 when len(business.naics) > 9 then decline "odd" stop end\n'
                 'rule r when business.naics starts_with "23" then accept "ok" end')
    assert codes(pairs) == {c for c in CODES if c.startswith("23")}


def test_refer_and_stop_first_keeps_businesses_without_class_when_information_is_missing():
    pairs = kept('rule m priority 20 when business.naics is null or business.state is null\n'
                 'then refer "need more" stop end\n'
                 'rule s priority 10 when business.state != "AZ" then decline "no" stop end\n'
                 'rule r when business.naics == "238210" then accept "ok" end')
    assert {(n, s) for n, s in pairs if n is not None and s is not None} == {("238210", "AZ")}
    assert all((None, st) in pairs for st in STATES) and all((c, None) in pairs for c in CODES)


def test_accepting_stop_rule_keeps_its_businesses_when_a_later_decline_would_match():
    pairs = kept('rule fast priority 20 when business.naics == "722511" then accept "ok" stop end\n'
                 'rule no priority 10 when business.naics starts_with "72" then decline "no" end\n'
                 'rule r when business.naics == "238210" then accept "ok" end')
    assert codes(pairs) == {"722511", "238210"}


def test_default_refer_keeps_every_class_when_only_states_are_declined():
    pairs = kept('rule s priority 10 when business.state in {"FL", "NY"} then decline "no" end\n'
                 'rule r when business.naics == "238210" then accept "ok" end', default="refer")
    assert codes(pairs) == {*CODES, None} and states(pairs, "561720") == {"AZ", "CA", "TX", None}


def test_table_rows_decide_when_a_rule_reads_the_class_fit_output():
    pairs = kept('table class_fit hit first priority 50\n'
                 '    | business.naics     | => fit     |\n'
                 '    | starts_with "2381" | "excluded" |\n'
                 '    | "238210"           | "core"     |\n'
                 '    | starts_with "238"  | "group"    |\n'
                 'end\n'
                 'rule r when outputs.fit == "core" or outputs.fit == "group" then accept "ok" end')
    assert codes(pairs) == {"238210", "238290", "238"}


def test_table_without_a_matching_row_gives_null_when_a_rule_tests_for_it():
    pairs = kept('table class_fit hit first priority 50\n'
                 '    | business.naics    | => fit |\n'
                 '    | starts_with "238" | "in"   |\n'
                 'end\n'
                 'rule r when outputs.fit is null then refer "unknown class" end')
    assert codes(pairs) == {"23", "236118", "561720", "722511", None}


def test_output_set_by_a_rule_keeps_the_appetite_when_a_rule_reads_it():
    pairs = kept('table class_fit hit first priority 50\n'
                 '    | business.naics    | => fit |\n'
                 '    | starts_with "238" | "in"   |\n'
                 'end\n'
                 'rule w priority 40 when business.state == "TX" then set fit = "in" end\n'
                 'rule r when outputs.fit == "in" then accept "ok" end')
    assert codes(pairs, "TX") == {*CODES, None}


def test_disabled_and_windowed_rules_are_read_conservatively_when_they_decide():
    pairs = kept('rule off priority 10 enabled false when business.state == "AZ" then decline "x" end\n'
                 'rule w priority 10 effective 2020-01-01 to 2020-12-31\n'
                 'when business.state == "CA" then decline "x" end\n'
                 'rule r when business.naics == "238210" then accept "ok" end')
    assert states(pairs) == {"AZ", "CA", "TX", "FL", "NY", None}


def test_candidates_keep_everything_when_a_field_is_not_a_string():
    ruleset = appetite('rule r when business.naics == "238210" then accept "ok" end')
    index = build_candidate_index({"a": ruleset})
    assert index.candidates({"naics": 238210, "state": "AZ"}) == {"a"}
    assert index.candidates({"naics": "561720", "state": "AZ"}) == frozenset()


def test_why_pruned_names_the_missing_field_when_no_rule_can_accept_without_it():
    index = build_candidate_index({"a": appetite(
        'rule r when business.naics == "238210" then accept "ok" end')})
    assert index.why_pruned("a", {"state": "AZ"}) == (
        "without a NAICS code no rule of this appetite can accept or refer")
    assert index.why_pruned("a", {"naics": "238210"}) is None


def test_constraints_are_any_when_an_appetite_reads_neither_class_nor_state():
    index = build_candidate_index({"a": appetite(
        'rule r when business.annual_revenue > 10 then accept "ok" end')})
    assert index.constraints("a").naics_prefixes is None
    assert index.constraints("a").state_codes is None


def test_string_sets_combine_exactly_when_prefixes_and_exclusions_mix():
    group = StringSet.prefixes(["238"]) & ~StringSet.prefixes(["2381"])
    written = group | StringSet.exact(["238190", "561720"])
    assert [c in written for c in ["238210", "2381", "238160", "238190", "561720", "56"]] == [
        True, False, False, True, True, False]
    assert written.describe() == "238*, not 2381*, 238190, 561720"
    assert (~written | written).is_all and (written & ~written).is_empty
    merged = MergedTree({"w": written, "all": ALL, "none": ~ALL})
    assert merged.members("238190") == {"w", "all"} and merged.members("99") == {"all"}


# --- random appetites ------------------------------------------------------------------------

ATOMS = [
    'business.naics starts_with "23"', 'business.naics starts_with "2381"',
    'business.naics == "238210"', 'business.naics != "561720"',
    'business.naics in {"238210", "561720"}', 'not (business.naics in GROUPS)',
    'business.state in STATES', 'business.state != "AZ"', 'business.state == "TX"',
    'business.naics is null', 'business.state is not null',
    'lower(business.description) contains "roof"',
    'any(p in GROUPS where business.naics starts_with p)',
    'all(p in GROUPS where not (business.naics starts_with p))',
    'outputs.fit == "core"', 'outputs.fit is null', 'outputs.fit != "none"',
    'if business.state == "TX" then business.naics starts_with "72" else business.naics == "238210"',
    'true',
]
conditions = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(st.tuples(inner, st.sampled_from(["and", "or"]), inner)
                            .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
                            inner.map(lambda c: f"not ({c})")),
    max_leaves=4)
rules = st.tuples(st.integers(0, 5), conditions,
                  st.sampled_from(["accept", "refer", "decline", None]), st.booleans(),
                  st.booleans())
CELLS = ['"238210"', 'starts_with "23"', 'starts_with "2381"', "-", "is null", '"561720"']
table_rows = st.lists(st.tuples(st.sampled_from(CELLS), st.sampled_from(["core", "none"])),
                      max_size=4)


def random_source(items, rows, hit, default) -> str:
    lines = ['const STATES = {"AZ", "CA"}', 'const GROUPS = ["2381", "5617"]']
    if rows:
        lines.append(f"table class_fit hit {hit} priority 3\n    | business.naics | => fit |")
        lines += [f'    | {cell} | "{value}" |' for cell, value in rows]
        lines.append("end")
    for number, (priority, condition, decision, stop, sets) in enumerate(items):
        actions = [f'{decision} "d"'] if decision else []
        actions += ['set fit = "core"'] if sets else []
        actions += ["stop"] if stop else []
        actions = actions or ["score += 1"]
        lines.append(f"rule r{number} priority {priority}\nwhen {condition}\nthen\n    "
                     + "\n    ".join(actions) + "\nend")
    return "\n".join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rules, min_size=1, max_size=5), table_rows, st.sampled_from(["first", "unique"]),
       st.sampled_from(["decline", "refer", "accept"]))
def test_random_appetites_decline_every_pruned_business_when_evaluated(items, rows, hit, default):
    try:
        ruleset = appetite(random_source(items, rows, hit, default), default)
    except RulesetInvalidError:
        assume(False)
    index = build_candidate_index({"a": ruleset})
    for business in grid():
        for description in ("plain work", "roof work"):
            business["description"] = description
            if "a" not in index.candidates(business):
                try:
                    decision = ruleset.evaluate({"business": business}, as_of=AS_OF).decision
                except EvaluationError:
                    continue
                assert decision in ("decline", None), (business, decision)
